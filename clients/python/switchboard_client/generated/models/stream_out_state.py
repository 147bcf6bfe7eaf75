from enum import StrEnum


class StreamOutState(StrEnum):
    CONNECTED = "connected"
    CONNECTING = "connecting"
    ENDED = "ended"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
