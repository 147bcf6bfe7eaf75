from celery import shared_task


@shared_task(name="consent.expire_grants")
def expire_grants() -> int:
    from consent.services import grants_expire_due

    return grants_expire_due()
