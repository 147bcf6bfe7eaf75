from enum import StrEnum


class TaskOutStatus(StrEnum):
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    FAILED = "failed"
    INPUT_REQUIRED = "input_required"
    WORKING = "working"

    def __str__(self) -> str:
        return str(self.value)
