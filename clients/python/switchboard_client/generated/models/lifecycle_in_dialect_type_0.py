from enum import StrEnum


class LifecycleInDialectType0(StrEnum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI_CLI = "gemini-cli"

    def __str__(self) -> str:
        return str(self.value)
