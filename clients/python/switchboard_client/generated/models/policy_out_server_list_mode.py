from enum import StrEnum


class PolicyOutServerListMode(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    OFF = "off"

    def __str__(self) -> str:
        return str(self.value)
