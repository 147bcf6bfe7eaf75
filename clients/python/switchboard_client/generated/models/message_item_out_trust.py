from enum import StrEnum


class MessageItemOutTrust(StrEnum):
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"

    def __str__(self) -> str:
        return str(self.value)
