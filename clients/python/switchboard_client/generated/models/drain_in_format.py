from enum import StrEnum


class DrainInFormat(StrEnum):
    JSONL = "jsonl"
    OCSF = "ocsf"

    def __str__(self) -> str:
        return str(self.value)
