from celery import shared_task


@shared_task(name="consent.expire_grants")
def expire_grants() -> int:
    from consent.services import grants_expire_due

    return grants_expire_due()


@shared_task(name="consent.expire_requests")
def expire_requests() -> int:
    from consent.services import consent_requests_expire_due

    return consent_requests_expire_due()


@shared_task(name="consent.purge_injections")
def purge_injections() -> int:
    from consent.services import injections_purge_due

    return injections_purge_due()


@shared_task(name="consent.push_injections", ignore_result=True)
def push_injections(injection_ids: list[str]) -> int:
    """Live "what was injected" rows for the user's and the staff's pages."""
    from consent.services.conversation import injections_push_by_id

    return injections_push_by_id(injection_ids=injection_ids)
