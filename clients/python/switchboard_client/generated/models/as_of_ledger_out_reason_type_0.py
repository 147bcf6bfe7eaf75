from enum import StrEnum


class AsOfLedgerOutReasonType0(StrEnum):
    NOT_SIGNED_YET = "not_signed_yet"
    NO_ENTRIES = "no_entries"

    def __str__(self) -> str:
        return str(self.value)
