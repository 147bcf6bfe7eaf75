"""What the hooks app keeps, and for how long."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from hooks.models import HookFiring, RefreshStatus, ThreadRefresh
from hooks.services.records import lifecycle_records_write
from switchboard.models import User
from switchboard.retention import retention_purge


def lifecycle_purge_expired(*, batch: int = 1000) -> int:
    """Erase text hooks injected once older than the host's retention for
    injected text (``switchboard.retention``; the rows stay: who, when, how
    much), each batch recorded in the ledger; drop finished refresh rows
    older than LIFECYCLE_RETENTION."""
    purged = retention_purge(
        "injected_text",
        due=lambda host, cutoff: (
            HookFiring.objects.filter(
                host_id=host.id, purged_at__isnull=True, created_at__lt=cutoff
            )
            .order_by("created_at")
            .values_list("id", flat=True)
        ),
        erase=lambda ids: HookFiring.objects.filter(pk__in=ids).update(
            text="", purged_at=timezone.now()
        ),
        batch=batch,
    )
    cutoff = timezone.now() - timedelta(seconds=settings.LIFECYCLE_RETENTION)
    ThreadRefresh.objects.filter(
        status__in=[RefreshStatus.COMPLETED, RefreshStatus.FAILED], finished_at__lt=cutoff
    ).delete()
    return purged


def hooks_forget_user(*, user: User) -> int:
    """Erase every text injected for this user (user deletion), those still
    waiting to be written included (written first, then erased)."""
    lifecycle_records_write(user_id=user.id)
    return HookFiring.objects.filter(user=user, purged_at__isnull=True).update(
        text="", purged_at=timezone.now()
    )
