"""SCIM 2.0 (RFC 7643/7644) at ``/scim/v2/``: scim2-server speaks the
protocol (validation, filters, PATCH, ETags, discovery, errors) and this
storage keeps each host's resources in the database, then applies what
they mean to the host's staff (``staff_access``)."""

from __future__ import annotations

import uuid
from collections.abc import Generator
from contextlib import contextmanager
from functools import cache
from typing import Any

from django.db import transaction
from scim2_models import ResourceType, ScimProvider, ServiceProviderConfig
from scim2_server.handler import ScimHandler
from scim2_server.memory import InMemoryStorage
from scim2_server.service import ScimService
from scim2_server.storage import ScimStorage, SearchPage
from scim2_server.utils import (
    load_default_resource_types,
    load_default_schemas,
    load_json_resource,
)

from switchboard.models import Role, ScimResource, SsoConnection, StaffIdentity, User
from switchboard.sso.staff_access import (
    role_from_groups,
    staff_deactivate,
    staff_reactivate,
    staff_role_set,
)


@cache
def scim_provider() -> ScimProvider:
    """Users and Groups as RFC 7643 defines them; no bulk, no passwords."""
    config = load_json_resource("default-service-provider-config.json")
    config["bulk"] = {"supported": False, "maxOperations": 0, "maxPayloadSize": 0}
    config["changePassword"] = {"supported": False}
    config["authenticationSchemes"] = [
        {
            "type": "oauthbearertoken",
            "name": "Bearer token",
            "description": "The host's SCIM token (POST /api/v1/sso/scim-token)",
            "primary": True,
        }
    ]
    return ScimProvider.from_discovery(
        load_default_schemas().values(),
        load_default_resource_types().values(),
        config=ServiceProviderConfig.model_validate(config),
    )


class _Loaded(InMemoryStorage):
    """The host's resources, loaded for one operation: versions and ids
    that stay unique across operations."""

    def next_version(self) -> str:
        return f'W/"{uuid.uuid4().hex[:16]}"'


class HostScimStorage(ScimStorage):
    """One host's SCIM resources. Each operation runs in a transaction that
    holds the host's connection row, so one host's writes take turns."""

    supports_cursors = False

    def __init__(self, connection: SsoConnection):
        self.connection = connection
        self.provider = scim_provider()
        self.memory: _Loaded | None = None

    @contextmanager
    def operation(self) -> Generator[None]:
        with transaction.atomic():
            SsoConnection.objects.select_for_update().filter(pk=self.connection.pk).first()
            self.memory = _Loaded()
            self.memory.resources = [self._model(row) for row in self._rows()]
            try:
                yield
            finally:
                self.memory = None

    def _rows(self):
        return ScimResource.objects.filter(host_id=self.connection.host_id)

    def _model(self, row: ScimResource):
        model = self.provider.model_for(self._type(row.resource_type))
        assert model is not None
        return model.model_validate(row.data)

    def _type(self, name: str) -> ResourceType:
        return next(rt for rt in self.provider.resource_types if rt.name == name)

    @property
    def _memory(self) -> _Loaded:
        assert self.memory is not None, "storage used outside an operation"
        return self.memory

    def get(self, resource_type, resource_id, *, response_parameters=None):
        return self._memory.get(resource_type, resource_id)

    def search(self, resource_types, search_request, *, position: Any = None) -> SearchPage:
        return self._memory.search(resource_types, search_request, position=position)

    def create(self, resource_type, resource):
        if resource_type.name == "User":
            resource.password = None  # staff have no passwords here; never kept
        created = self._memory.create(resource_type, resource)
        self._saved(resource_type, created, previous=None)
        return created

    def update(self, resource_type, resource, *, expected_version=None):
        if resource_type.name == "User":
            resource.password = None
        previous = self._memory.get(resource_type, resource.id)
        updated = self._memory.update(resource_type, resource, expected_version=expected_version)
        self._saved(resource_type, updated, previous=previous)
        return updated

    def delete(self, resource_type, resource_id, *, expected_version=None):
        previous = self._memory.get(resource_type, resource_id)
        self._memory.delete(resource_type, resource_id, expected_version=expected_version)
        row = self._rows().filter(resource_type=resource_type.name, resource_id=resource_id).first()
        if row is None:
            return
        row.delete()
        if resource_type.name == "User" and row.user is not None:
            staff_deactivate(user=row.user, reason="deleted_by_scim")
        if resource_type.name == "Group":
            self._roles_recompute(_member_ids(previous))

    # -- what the resources mean for the host's staff --------------------

    def _saved(self, resource_type, resource, *, previous) -> None:
        data = resource.model_dump(mode="json")
        row, _ = ScimResource.objects.update_or_create(
            host_id=self.connection.host_id,
            resource_type=resource_type.name,
            resource_id=resource.id,
            defaults={
                "data": data,
                "external_id": resource.external_id or "",
                "user_name": (getattr(resource, "user_name", "") or "").lower(),
            },
        )
        if resource_type.name == "User":
            self._user_saved(row, resource)
        else:
            ids = _member_ids(resource) | (_member_ids(previous) if previous else set())
            self._roles_recompute(ids)

    def _user_saved(self, row: ScimResource, resource) -> None:
        user = row.user or self._existing_staff(resource.external_id)
        if user is None:
            user = User(host_id=self.connection.host_id, role=Role.NONE)
            user.username = user.id
            user.set_unusable_password()
        user.email = (resource.user_name or "").lower()
        user.display_name = (resource.display_name or resource.user_name or "")[:200]
        user.save()
        if row.user_id != user.id:
            row.user = user
            row.save(update_fields=["user", "updated_at"])
        if resource.active is False:
            staff_deactivate(user=user, reason="deactivated_by_scim")
        elif not user.is_active:
            # Back from deactivation: the role its groups give (none without
            # any; the claim gives one again at the next sign-in).
            staff_reactivate(user=user)
            self._roles_recompute({row.resource_id})
        # Otherwise the role stays: groups change it when their members
        # change, the claim at each sign-in.

    def _existing_staff(self, external_id: str | None) -> User | None:
        """Someone who signed in before they were provisioned: the IdP's id
        (``externalId``) is their ``sub`` at this host's issuer."""
        if not external_id:
            return None
        identity = (
            StaffIdentity.objects.filter(
                issuer=self.connection.issuer,
                subject=external_id,
                user__host_id=self.connection.host_id,
            )
            .select_related("user")
            .first()
        )
        return identity.user if identity else None

    def _roles_recompute(self, user_resource_ids: set[str]) -> None:
        groups = self._rows().filter(resource_type="Group")
        names_of: dict[str, list[str]] = {}
        for group in groups:
            for member in group.data.get("members") or []:
                names_of.setdefault(member.get("value", ""), []).append(
                    group.data.get("displayName", "")
                )
        rows = self._rows().filter(
            resource_type="User", resource_id__in=user_resource_ids, user__isnull=False
        )
        connection = SsoConnection.objects.filter(pk=self.connection.pk).first()
        for row in rows.select_related("user"):
            role = role_from_groups(connection, names_of.get(row.resource_id, []))
            staff_role_set(user=row.user, role=role)  # type: ignore[arg-type]


def _member_ids(resource) -> set[str]:
    return {m.value for m in (getattr(resource, "members", None) or []) if m.value}


def scim_handler(connection: SsoConnection) -> ScimHandler:
    provider = scim_provider()
    return ScimHandler(ScimService(provider), HostScimStorage(connection))
