"""The attributes the public OCSF schema (1.3, github.com/ocsf/ocsf-schema)
requires of the two classes the audit drain writes, written out here (no
OCSF schema package on PyPI ships the schema offline: ``ocsf-lib`` fetches
it from schema.ocsf.io at run time).

- ``events/base_event.json`` and its traits: ``activity_id``,
  ``category_uid``, ``class_uid``, ``metadata``, ``severity_id``, ``time``,
  ``type_uid``.
- ``objects/metadata.json``: ``product``, ``version``;
  ``objects/product.json``: ``name`` (``vendor_name`` in 1.0-1.1).
- ``events/application/api.json`` (API Activity, 6003): ``actor``, ``api``,
  ``src_endpoint``; ``objects/api.json``: ``operation``.
- ``events/iam/account_change.json`` (Account Change, 3001): ``user``.
- Constraints: ``actor`` at least one of process, user, session, app_name,
  app_uid, invoked_by; ``user`` at least one of account, name, uid;
  ``network_endpoint`` (``src_endpoint``) at least one of ip, uid, name,
  hostname, svc_name, domain, instance_uid, interface_uid.
"""

from __future__ import annotations

from typing import Any

BASE = ("activity_id", "category_uid", "class_uid", "metadata", "severity_id", "time", "type_uid")
CLASSES = {
    6003: {"category_uid": 6, "required": ("actor", "api", "src_endpoint")},
    3001: {"category_uid": 3, "required": ("user",)},
}
AT_LEAST_ONE = {
    "actor": ("process", "user", "session", "app_name", "app_uid", "invoked_by"),
    "user": ("account", "name", "uid"),
    "src_endpoint": (
        "ip",
        "uid",
        "name",
        "hostname",
        "svc_name",
        "domain",
        "instance_uid",
        "interface_uid",
    ),
}


def missing_required(event: dict[str, Any]) -> list[str]:
    """What the event lacks of its class's required attributes (empty: valid)."""
    missing = [name for name in BASE if event.get(name) in (None, "")]
    spec = CLASSES.get(event.get("class_uid"))  # type: ignore[arg-type]
    if spec is None:
        return [*missing, f"class_uid {event.get('class_uid')!r} is not one we write"]
    if event.get("category_uid") != spec["category_uid"]:
        missing.append("category_uid (wrong for the class)")
    missing += [name for name in spec["required"] if not event.get(name)]
    metadata = event.get("metadata") or {}
    missing += [f"metadata.{n}" for n in ("product", "version") if not metadata.get(n)]
    if not (metadata.get("product") or {}).get("name"):
        missing.append("metadata.product.name")
    if "api" in spec["required"] and not (event.get("api") or {}).get("operation"):
        missing.append("api.operation")
    for name, options in AT_LEAST_ONE.items():
        value = event.get(name)
        if value is not None and not any(value.get(o) for o in options):
            missing.append(f"{name} (one of {', '.join(options)})")
    if not isinstance(event.get("time"), int):
        missing.append("time (a timestamp in ms)")
    return missing
