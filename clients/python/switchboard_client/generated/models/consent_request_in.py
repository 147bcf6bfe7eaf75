from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consent_request_in_handlers_type_0_item import (
        ConsentRequestInHandlersType0Item,
    )


T = TypeVar("T", bound="ConsentRequestIn")


@_attrs_define
class ConsentRequestIn:
    """
    Attributes:
        scopes (list[str]): conversation:read, hooks, events
        server (str):
        user (str): the user's external_id
        event_types (list[str] | None | Unset): for the events scope; all the server offers when left out
        handlers (list[ConsentRequestInHandlersType0Item] | None | Unset): MCPE servers, events scope: the agent
            handlers ({type: agent, systemPrompt?, instructions?, model?, tools?}) subscriptions would run, shown to the
            user; a subscription may carry one only under a grant that showed it
        return_url (None | str | Unset): where the consent page sends the user back: a registered origin or a path
    """

    scopes: list[str]
    server: str
    user: str
    event_types: list[str] | None | Unset = UNSET
    handlers: list[ConsentRequestInHandlersType0Item] | None | Unset = UNSET
    return_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scopes = self.scopes

        server = self.server

        user = self.user

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        handlers: list[dict[str, Any]] | None | Unset
        if isinstance(self.handlers, Unset):
            handlers = UNSET
        elif isinstance(self.handlers, list):
            handlers = []
            for handlers_type_0_item_data in self.handlers:
                handlers_type_0_item = handlers_type_0_item_data.to_dict()
                handlers.append(handlers_type_0_item)

        else:
            handlers = self.handlers

        return_url: None | str | Unset
        if isinstance(self.return_url, Unset):
            return_url = UNSET
        else:
            return_url = self.return_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scopes": scopes,
                "server": server,
                "user": user,
            }
        )
        if event_types is not UNSET:
            field_dict["event_types"] = event_types
        if handlers is not UNSET:
            field_dict["handlers"] = handlers
        if return_url is not UNSET:
            field_dict["return_url"] = return_url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.consent_request_in_handlers_type_0_item import (
            ConsentRequestInHandlersType0Item,  # noqa: PLC0415
        )

        d = dict(src_dict)
        scopes = cast(list[str], d.pop("scopes"))

        server = d.pop("server")

        user = d.pop("user")

        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("event_types", UNSET))

        def _parse_handlers(data: object) -> list[ConsentRequestInHandlersType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                handlers_type_0 = []
                _handlers_type_0 = data
                for handlers_type_0_item_data in _handlers_type_0:
                    handlers_type_0_item = ConsentRequestInHandlersType0Item.from_dict(
                        handlers_type_0_item_data
                    )

                    handlers_type_0.append(handlers_type_0_item)

                return handlers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ConsentRequestInHandlersType0Item] | None | Unset, data)

        handlers = _parse_handlers(d.pop("handlers", UNSET))

        def _parse_return_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        return_url = _parse_return_url(d.pop("return_url", UNSET))

        consent_request_in = cls(
            scopes=scopes,
            server=server,
            user=user,
            event_types=event_types,
            handlers=handlers,
            return_url=return_url,
        )

        consent_request_in.additional_properties = d
        return consent_request_in

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
