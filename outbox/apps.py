from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "outbox"

    def ready(self) -> None:
        from outbox import receivers
        from switchboard import signals
        from switchboard.services import ledger_witness as witness

        signals.server_status_changed.connect(
            receivers.server_status_changed, dispatch_uid="outbox.server_status_changed"
        )
        signals.audit_checkpoint_issued.connect(
            receivers.audit_checkpoint_issued, dispatch_uid="outbox.audit_checkpoint_issued"
        )
        if receivers.checkpoint_last_received not in witness.checkpoint_receipts:
            witness.checkpoint_receipts.append(receivers.checkpoint_last_received)
