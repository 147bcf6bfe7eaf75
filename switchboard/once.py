"""Creating a row once under a unique constraint, whoever else tries at the same time."""

from __future__ import annotations

from collections.abc import Callable

from django.db import IntegrityError, transaction


def found_or_created[T](find: Callable[[], T | None], create: Callable[[], T]) -> tuple[T, bool]:
    """What ``find`` returns, or ``create()`` (in a transaction of its own, a
    savepoint inside another) with ``created`` True. When a concurrent
    creator wins the race for the unique constraint, ``create`` fails with
    ``IntegrityError`` and the winner is answered: Django's ``get_or_create``
    for creations that are more than one INSERT."""
    existing = find()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return create(), True
    except IntegrityError:
        existing = find()
        if existing is None:
            raise
        return existing, False
