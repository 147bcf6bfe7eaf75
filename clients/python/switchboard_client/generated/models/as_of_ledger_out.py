from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.as_of_ledger_out_reason_type_0 import AsOfLedgerOutReasonType0

if TYPE_CHECKING:
    from ..models.checkpoint_out import CheckpointOut


T = TypeVar("T", bound="AsOfLedgerOut")


@_attrs_define
class AsOfLedgerOut:
    """
    Attributes:
        checkpoint (CheckpointOut | None): the first signed checkpoint whose tree holds that leaf (tree_size >
            leaf_index), as GET /audit/checkpoint gives one: keep it to check the entries later with the proof endpoints or
            switchboard-verify; null when none holds it (see reason)
        entry (None | str): the newest ledger entry the answer replays (null: nothing was recorded for the user by then)
        leaf_index (int | None): that entry's leaf in the host's transparency log; the leaves follow the entries' order,
            so every entry the answer replays is at or before it
        reason (AsOfLedgerOutReasonType0 | None): why checkpoint is null: no_entries (nothing to cover), not_signed_yet
            (the next checkpoint, within AUDIT_CHECKPOINT_INTERVAL, will hold it); null when there is a checkpoint
    """

    checkpoint: CheckpointOut | None
    entry: None | str
    leaf_index: int | None
    reason: AsOfLedgerOutReasonType0 | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.checkpoint_out import CheckpointOut  # noqa: PLC0415

        checkpoint: dict[str, Any] | None
        if isinstance(self.checkpoint, CheckpointOut):
            checkpoint = self.checkpoint.to_dict()
        else:
            checkpoint = self.checkpoint

        entry: None | str
        entry = self.entry

        leaf_index: int | None
        leaf_index = self.leaf_index

        reason: None | str
        if isinstance(self.reason, AsOfLedgerOutReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint": checkpoint,
                "entry": entry,
                "leaf_index": leaf_index,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.checkpoint_out import CheckpointOut  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_checkpoint(data: object) -> CheckpointOut | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                checkpoint_type_0 = CheckpointOut.from_dict(data)

                return checkpoint_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CheckpointOut | None, data)

        checkpoint = _parse_checkpoint(d.pop("checkpoint"))

        def _parse_entry(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        entry = _parse_entry(d.pop("entry"))

        def _parse_leaf_index(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        leaf_index = _parse_leaf_index(d.pop("leaf_index"))

        def _parse_reason(data: object) -> AsOfLedgerOutReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = AsOfLedgerOutReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AsOfLedgerOutReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        as_of_ledger_out = cls(
            checkpoint=checkpoint,
            entry=entry,
            leaf_index=leaf_index,
            reason=reason,
        )

        as_of_ledger_out.additional_properties = d
        return as_of_ledger_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
