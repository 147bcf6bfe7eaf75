from celery import shared_task

from consent.services import consent_requests_expire_due, grants_expire_due, injections_purge_due


@shared_task(name="consent.expire_grants")
def expire_grants() -> int:

    return grants_expire_due()


@shared_task(name="consent.expire_requests")
def expire_requests() -> int:

    return consent_requests_expire_due()


@shared_task(name="consent.purge_injections")
def purge_injections() -> int:

    return injections_purge_due()
