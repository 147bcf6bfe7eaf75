from enum import StrEnum


class SkippedOutReason(StrEnum):
    DISABLED = "disabled"
    ERROR = "error"
    NOT_SUPPORTED = "not_supported"
    NO_CONSENT = "no_consent"
    OVER_BUDGET = "over_budget"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
