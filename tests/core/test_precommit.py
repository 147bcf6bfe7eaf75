"""The pre-commit hooks (.pre-commit-config.yaml) run what ``make lint``
runs, no more and no less: a check added to one and not the other would
pass on a commit and fail in CI, or the other way round."""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
VENV = ".venv/bin/"
# Pre-commit hands a hook the changed files; ``--force-exclude`` makes ruff
# skip the project's excluded ones among them, as it does when ``make lint``
# gives it the whole tree (``.``). Both are how files are chosen, not what
# is checked.
HOW_FILES_ARE_CHOSEN = {".", "--force-exclude"}


def _command(words: list[str]) -> tuple[str, ...]:
    program, *args = words
    program = program.removeprefix(VENV)
    return (program, *(a for a in args if a not in HOW_FILES_ARE_CHOSEN))


def make_target_commands(makefile: str, target: str) -> list[tuple[str, ...]]:
    """The commands of ``target``'s recipe: its tab-indented lines (``@``
    dropped, continuations joined), split on ``&&`` and ``;``."""
    lines = makefile.replace("\\\n", " ").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip().removeprefix("@"))
    commands = []
    for line in recipe:
        for part in line.replace(";", "&&").split("&&"):
            if part.strip():
                commands.append(_command(shlex.split(part)))
    return commands


def precommit_commands(config: dict) -> list[tuple[str, ...]]:
    """Each hook's command, with its ``args``."""
    commands = []
    for repo in config["repos"]:
        for hook in repo["hooks"]:
            commands.append(_command([*shlex.split(hook["entry"]), *hook.get("args", [])]))
    return commands


def test_the_parsers_see_each_command():
    makefile = (
        "x:\n\t@a . && .venv/bin/b --c .\n"
        "lint:\n\t@.venv/bin/ruff check . && \\\n\tmypy x\n"
        "\nother:\n\ty\n"
    )
    assert make_target_commands(makefile, "lint") == [("ruff", "check"), ("mypy", "x")]
    config = {"repos": [{"hooks": [{"entry": ".venv/bin/ruff check --force-exclude"}]}]}
    config["repos"][0]["hooks"].append({"entry": "mypy", "args": ["x"]})
    assert precommit_commands(config) == [("ruff", "check"), ("mypy", "x")]


def test_the_precommit_hooks_run_what_make_lint_runs():
    lint = make_target_commands((ROOT / "Makefile").read_text(), "lint")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    assert lint  # the target is found and lists commands
    assert precommit_commands(config) == lint


def test_the_precommit_hooks_use_the_projects_tools():
    """Local hooks with the project's own ``.venv`` tools: the versions
    ``make lint`` and CI use, not whatever pre-commit would fetch."""
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    for repo in config["repos"]:
        assert repo["repo"] == "local"
        for hook in repo["hooks"]:
            assert hook["language"] == "system", hook["id"]
            assert hook["entry"].startswith(VENV), hook["id"]
