from enum import StrEnum


class ServerPatchTrustType0(StrEnum):
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"

    def __str__(self) -> str:
        return str(self.value)
