from enum import StrEnum


class GrantOutSource(StrEnum):
    ORGANISATION = "organisation"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
