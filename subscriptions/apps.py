from django.apps import AppConfig


class SubscriptionsConfig(AppConfig):
    name = "subscriptions"

    def ready(self) -> None:
        from consent.cards import CardPart, card_part_register
        from consent.connections import usage_counter_register
        from consent.signals import grant_changed
        from outbox.gates import forward_gate_register
        from subscriptions import receivers
        from subscriptions.services.forwarding import EVENT_TYPES, events_forward_refusals
        from subscriptions.services.mcpe import MCPE_KIND
        from subscriptions.services.push import PUSH_KIND
        from switchboard import signals
        from switchboard.retiring import retiring_counter_register
        from switchboard.sessions.registry import held_kind_register

        card_part_register(
            CardPart(
                name="subscriptions",
                template="subscriptions/_card_part.html",
                load=receivers.subscriptions_for_card,
            )
        )
        retiring_counter_register("subscriptions", receivers.subscriptions_of_server)
        usage_counter_register("events", receivers.event_deliveries)
        held_kind_register(PUSH_KIND)
        held_kind_register(MCPE_KIND)
        forward_gate_register(types=EVENT_TYPES, gate=events_forward_refusals)
        grant_changed.connect(receivers.grant_changed, dispatch_uid="subscriptions.grant_changed")
        signals.user_erasing.connect(receivers.erase_user, dispatch_uid="subscriptions.erase_user")
        signals.server_blocking.connect(
            receivers.server_blocking, dispatch_uid="subscriptions.server_blocking"
        )
