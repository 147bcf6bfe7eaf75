from enum import StrEnum


class ServerPatchEventsDialectType0(StrEnum):
    AUTO = "auto"
    CHATGPT = "chatgpt"
    SEP_3415 = "sep-3415"

    def __str__(self) -> str:
        return str(self.value)
