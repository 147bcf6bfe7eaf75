"""Rows written in raw SQL exactly as the ORM would write them: what the
one-statement paths share (the outbox's INSERT, ``outbox.delivery_sql``; the
webhook receiver's ``subscriptions.services.receiver.sql``; the push intake's
``subscriptions.services.arrivals_sql``).

The values come from the fields themselves (defaults, ``auto_now_add``, JSON
adaptation), so a row written here and one written by ``save()`` are the
same row."""

from __future__ import annotations

from typing import Any

from django.db import connection, models
from django.db.models.fields import AutoFieldMixin


def one_statement_available() -> bool:
    """Whether data-modifying CTEs can run here (PostgreSQL)."""
    return connection.vendor == "postgresql"


def inserted_fields(model: type[models.Model]) -> list[models.Field]:
    """Every column an INSERT writes: all but the database-assigned key."""
    pk = model._meta.pk
    assert isinstance(pk, AutoFieldMixin), model  # assigned by the database
    return [f for f in model._meta.concrete_fields if f is not pk]


def insert_params(obj: models.Model) -> list[Any]:
    """The values the ORM's INSERT would send for ``obj`` (defaults, auto_now_add
    and JSON adaptation included)."""
    return [
        f.get_db_prep_save(f.pre_save(obj, add=True), connection)
        for f in inserted_fields(type(obj))
    ]


def columns(fields: list[models.Field]) -> str:
    return ", ".join(connection.ops.quote_name(str(f.column)) for f in fields)


def typed_placeholders(fields: list[models.Field]) -> str:
    """Placeholders cast to their columns' types: in a SELECT list or a
    VALUES list a parameter has no column to take its type from. SQLite
    takes the column's type when the row is inserted (and a cast there would
    turn a datetime's text into a number)."""
    if connection.vendor == "sqlite":
        return ", ".join(["%s"] * len(fields))
    return ", ".join(f"%s::{f.cast_db_type(connection) or f.db_type(connection)}" for f in fields)
