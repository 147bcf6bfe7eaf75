from enum import StrEnum


class AccessRequestOutStatus(StrEnum):
    APPROVED = "approved"
    DENIED = "denied"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
