"""Tests of a data migration: the database taken back to before it, rows
written as a deployment of that time had them, then migrated forward.
Such a test runs with ``django_db(transaction=True)``."""

from __future__ import annotations

from collections.abc import Iterable

from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

Node = tuple[str, str]


def newest() -> list[Node]:
    """Every app at its newest migration."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def before(node: Node, *, also_back: Iterable[str] = ()) -> list[Node]:
    """``node``'s app at ``node``; every other app at its newest, but those in
    ``also_back`` (apps that depend on the migrations undone), left where
    ``node`` leaves them."""
    held = {node[0], *also_back}
    return [node] + [leaf for leaf in newest() if leaf[0] not in held]


def migrate(targets: list[Node]) -> Apps:
    """Migrate to ``targets``; the historical models there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps
