"""The ledger's transparency log over the API (docs/transparency.md): the newest
signed checkpoint and the RFC 9162 proofs against checkpoints issued."""

from __future__ import annotations

import base64

from ninja import Query, Router, Schema
from pydantic import Field

from switchboard import tlog
from switchboard.api.schemas import ErrorOut
from switchboard.errors import Conflict, Invalid, NotFound
from switchboard.models import AuditCheckpoint, AuditEntry
from switchboard.services.ledger_checkpoints import checkpoint_as_dict, latest_checkpoint
from switchboard.services.ledger_tree import leaves

router = Router(tags=["audit"])


class CheckpointKeyOut(Schema):
    name: str
    key_id: str
    public_key: str
    vkey: str


class CheckpointOut(Schema):
    origin: str
    tree_size: int
    root_hash: str
    note: str
    key: CheckpointKeyOut


class InclusionOut(Schema):
    leaf_index: int
    tree_size: int
    hashes: list[str]


class ConsistencyOut(Schema):
    hashes: list[str]


# Sizes and ids within PostgreSQL's bigint, so a huge one is a 422, not a 500.
_BIG = 2**62


class InclusionQuery(Schema):
    entry: int = Field(..., ge=1, le=_BIG)
    tree_size: int = Field(..., ge=1, le=_BIG)


class ConsistencyQuery(Schema):
    from_: int = Field(..., ge=1, le=_BIG, alias="from")
    to: int = Field(..., ge=1, le=_BIG)


_ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut}


def _b64(values: list[bytes]) -> list[str]:
    return [base64.b64encode(value).decode() for value in values]


def _issued(host_id: str, size: int, field: str) -> AuditCheckpoint:
    found = AuditCheckpoint.objects.filter(host_id=host_id, tree_size=size).first()
    if found is None:
        raise Invalid(f"no checkpoint was issued for a tree of size {size}", field=field)
    return found


def _tree(host_id: str, checkpoint: AuditCheckpoint, size: int) -> list[bytes]:
    """The leaves of the tree of ``size`` from the entries, refused (409
    ``inconsistent``) when they no longer give the root ``checkpoint``
    signed."""
    current = leaves(host_id, size)
    if len(current) < checkpoint.tree_size or (
        tlog.root_hash(current[: checkpoint.tree_size]).hex() != checkpoint.root_hash
    ):
        raise Conflict(
            f"the ledger no longer gives the root of checkpoint {checkpoint.tree_size}",
            code="inconsistent",
        )
    return current


@router.get("/audit/checkpoint", response={200: CheckpointOut, **_ERRORS})
def audit_checkpoint(request):
    """The newest signed checkpoint of this host's ledger (404 before the first)."""
    checkpoint = latest_checkpoint(request.host.id)
    if checkpoint is None:
        raise NotFound("no checkpoint was issued for this host yet")
    return checkpoint_as_dict(checkpoint)


@router.get("/audit/proof/inclusion", response={200: InclusionOut, **_ERRORS})
def audit_inclusion_proof(request, params: Query[InclusionQuery]):
    """RFC 9162 §2.1.3: the entry's audit path in the tree of ``tree_size``
    (a size a checkpoint was issued for)."""
    entry, tree_size = params.entry, params.tree_size
    found = AuditEntry.objects.filter(host_id=request.host.id, pk=entry).first()
    if found is None:
        raise NotFound("no such entry", field="entry")
    checkpoint = _issued(request.host.id, tree_size, "tree_size")
    if found.leaf_index is None or found.leaf_index >= tree_size:
        raise Invalid(f"the tree of size {tree_size} does not hold this entry", field="entry")
    current = _tree(request.host.id, checkpoint, tree_size)
    return {
        "leaf_index": found.leaf_index,
        "tree_size": tree_size,
        "hashes": _b64(tlog.inclusion_proof(current, found.leaf_index)),
    }


@router.get("/audit/proof/consistency", response={200: ConsistencyOut, **_ERRORS})
def audit_consistency_proof(request, params: Query[ConsistencyQuery]):
    """RFC 9162 §2.1.4: the tree of ``to`` extends the tree of ``from``
    (both sizes checkpoints were issued for)."""
    from_, to = params.from_, params.to
    if from_ > to:
        raise Invalid("from must not be more than to", field="from")
    old = _issued(request.host.id, from_, "from")
    new = _issued(request.host.id, to, "to")
    current = _tree(request.host.id, new, to)
    _tree(request.host.id, old, from_)
    return {"hashes": _b64(tlog.consistency_proof(current, from_))}
