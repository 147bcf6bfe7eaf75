from enum import StrEnum


class ChannelInType(StrEnum):
    CRON = "cron"
    REALTIME = "realtime"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
