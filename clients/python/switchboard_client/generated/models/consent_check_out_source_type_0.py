from enum import StrEnum


class ConsentCheckOutSourceType0(StrEnum):
    ORGANISATION = "organisation"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
