from enum import StrEnum


class SubscriptionInDelivery(StrEnum):
    AUTO = "auto"
    POLL = "poll"
    PUSH = "push"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
