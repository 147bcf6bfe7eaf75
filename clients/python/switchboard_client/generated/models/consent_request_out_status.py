from enum import StrEnum


class ConsentRequestOutStatus(StrEnum):
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"
    PARTIALLY_APPROVED = "partially_approved"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
