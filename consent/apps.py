from django.apps import AppConfig


class ConsentConfig(AppConfig):
    name = "consent"

    def ready(self) -> None:
        from consent import receivers
        from consent.cards import CardPart, card_part_register
        from consent.connections import connections_for_card
        from switchboard import signals
        from switchboard.retiring import retiring_counter_register

        signals.user_erasing.connect(receivers.erase_user, dispatch_uid="consent.erase_user")
        signals.server_declarations_changed.connect(
            receivers.server_declarations_changed, dispatch_uid="consent.declarations_changed"
        )
        signals.server_registration_changed.connect(
            receivers.server_registration_changed, dispatch_uid="consent.registration_changed"
        )
        signals.server_retiring.connect(
            receivers.server_retiring, dispatch_uid="consent.server_retiring"
        )
        signals.server_blocking.connect(
            receivers.server_blocking, dispatch_uid="consent.server_blocking"
        )
        signals.user_groups_changed.connect(
            receivers.user_groups_changed, dispatch_uid="consent.user_groups_changed"
        )
        retiring_counter_register("consents", receivers.consents_of_server)
        card_part_register(
            CardPart(
                name="connection",
                template="consent/_connection.html",
                load=connections_for_card,
            )
        )
