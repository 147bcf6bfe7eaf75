from enum import StrEnum


class PolicyInServerListModeType0(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    OFF = "off"

    def __str__(self) -> str:
        return str(self.value)
