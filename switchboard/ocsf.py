"""Ledger entries as OCSF events (the Open Cybersecurity Schema Framework,
1.3), for SIEMs that read OCSF: the one place the mapping lives.

- Changes to accounts (users, staff, API keys, their credentials and
  erasure) are **Account Change** (class 3001, category 3 Identity & Access
  Management), the account concerned in ``user``.
- Everything else (consent, servers, subscriptions, hooks, policy, the
  drain, reads of the audit) is **API Activity** (class 6003, category 6
  Application Activity), the ledger kind in ``api.operation``.

- A signed checkpoint of the transparency log is API Activity too, a
  Create of ``audit.checkpoint`` (``ocsf_checkpoint_event``), the
  checkpoint itself (origin, tree size, root hash, signed note) in
  ``unmapped``.

``type_uid`` is ``class_uid * 100 + activity_id`` as the schema defines it.
The entry's id and its hashes (``content_hash``, ``chain_hash``) travel in
``metadata.uid`` and ``unmapped``, so a SIEM can still verify the chain.
"""

from __future__ import annotations

import base64
from typing import Any

from switchboard.models import AuditCheckpoint, AuditEntry

OCSF_VERSION = "1.3.0"
PRODUCT = {"name": "Switchboard", "vendor_name": "Switchboard", "version": "1"}

API_ACTIVITY = 6003
ACCOUNT_CHANGE = 3001
_CATEGORY = {API_ACTIVITY: 6, ACCOUNT_CHANGE: 3}
_CLASS_NAME = {API_ACTIVITY: "API Activity", ACCOUNT_CHANGE: "Account Change"}
_CATEGORY_NAME = {6: "Application Activity", 3: "Identity & Access Management"}

# Ledger kinds about accounts → Account Change activity (1 Create, 3
# Password Change, 6 Delete, 99 Other).
_ACCOUNT_KINDS = {
    "user.created": (1, "Create"),
    "user.deleted": (6, "Delete"),
    "consent.user_erased": (6, "Delete"),
    "user.credentials_set": (3, "Password Change"),
    "staff.saved": (99, "Other"),
    "api_key.created": (1, "Create"),
    "api_key.revoked": (6, "Delete"),
}
# API Activity by the verb that ends the kind (1 Create, 2 Read, 3 Update, 4 Delete).
_VERBS = {
    "created": (1, "Create"),
    "registered": (1, "Create"),
    "opened": (1, "Create"),
    "issued": (1, "Create"),
    "read": (2, "Read"),
    "exported": (2, "Read"),
    "deleted": (4, "Delete"),
    "revoked": (4, "Delete"),
    "purged": (4, "Delete"),
    "drain_deleted": (4, "Delete"),
    "drain_created": (1, "Create"),
}
SEVERITY_INFORMATIONAL = 1
STATUS_SUCCESS = 1


def _activity(kind: str) -> tuple[int, int, str]:
    if kind in _ACCOUNT_KINDS:
        return ACCOUNT_CHANGE, *_ACCOUNT_KINDS[kind]
    verb = kind.rsplit(".", 1)[-1]
    return API_ACTIVITY, *_VERBS.get(verb, (3, "Update"))


def _actor(entry: AuditEntry) -> dict[str, Any]:
    actor: dict[str, Any] = {"app_name": "Switchboard"}
    if entry.actor_kind != "system":
        actor["user"] = {
            "uid": entry.actor_id or entry.actor_kind,
            "name": entry.actor_label,
            "type": entry.actor_kind,
        }
    return actor


def ocsf_event(entry: AuditEntry) -> dict[str, Any]:
    """One ledger entry as an OCSF event of its class."""
    class_uid, activity_id, activity_name = _activity(entry.kind)
    category_uid = _CATEGORY[class_uid]
    event: dict[str, Any] = {
        "class_uid": class_uid,
        "class_name": _CLASS_NAME[class_uid],
        "category_uid": category_uid,
        "category_name": _CATEGORY_NAME[category_uid],
        "activity_id": activity_id,
        "activity_name": activity_name,
        "type_uid": class_uid * 100 + activity_id,
        "severity_id": SEVERITY_INFORMATIONAL,
        "status_id": STATUS_SUCCESS,
        "time": int(entry.at.timestamp() * 1000),
        "message": entry.summary,
        "metadata": {
            "version": OCSF_VERSION,
            "product": PRODUCT,
            "uid": str(entry.id),
            "log_name": "switchboard_audit_ledger",
            "tenant_uid": entry.host_id,
        },
        "actor": _actor(entry),
        "src_endpoint": {"name": entry.actor_label or entry.actor_kind},
        "unmapped": {
            "kind": entry.kind,
            "content_hash": entry.content_hash,
            "chain_hash": entry.chain_hash,
            "server": entry.server_id or None,
            "detail": entry.detail,
        },
    }
    if entry.subject_type:
        event["resources"] = [{"uid": entry.subject_id, "type": entry.subject_type}]
    if class_uid == ACCOUNT_CHANGE:
        event["user"] = {
            "uid": entry.user_id or entry.subject_id or entry.actor_id,
            "name": entry.user_external_id or entry.subject_id or entry.actor_label,
        }
    else:
        event["api"] = {"operation": entry.kind, "service": {"name": "Switchboard"}}
    return event


def ocsf_checkpoint_event(checkpoint: AuditCheckpoint) -> dict[str, Any]:
    """A signed checkpoint as an API Activity Create of ``audit.checkpoint``,
    done by the console itself."""
    activity_id, activity_name = _VERBS["issued"]
    return {
        "class_uid": API_ACTIVITY,
        "class_name": _CLASS_NAME[API_ACTIVITY],
        "category_uid": _CATEGORY[API_ACTIVITY],
        "category_name": _CATEGORY_NAME[_CATEGORY[API_ACTIVITY]],
        "activity_id": activity_id,
        "activity_name": activity_name,
        "type_uid": API_ACTIVITY * 100 + activity_id,
        "severity_id": SEVERITY_INFORMATIONAL,
        "status_id": STATUS_SUCCESS,
        "time": int(checkpoint.issued_at.timestamp() * 1000),
        "message": f"Checkpoint of the first {checkpoint.tree_size} ledger entries signed",
        "metadata": {
            "version": OCSF_VERSION,
            "product": PRODUCT,
            "uid": f"checkpoint-{checkpoint.tree_size}",
            "log_name": "switchboard_audit_ledger",
            "tenant_uid": checkpoint.host_id,
        },
        "actor": {"app_name": "Switchboard"},
        "src_endpoint": {"name": "system"},
        "api": {"operation": "audit.checkpoint", "service": {"name": "Switchboard"}},
        "unmapped": {
            "kind": "audit.checkpoint",
            "origin": checkpoint.key_name,
            "tree_size": checkpoint.tree_size,
            # base64, as the checkpoint endpoint and ``audit.checkpoint`` give it
            "root_hash": base64.b64encode(bytes.fromhex(checkpoint.root_hash)).decode(),
            "note": checkpoint.note,
            "last_entry_id": str(checkpoint.last_entry_id),
        },
    }
