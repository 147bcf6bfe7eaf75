"""A URL given to send to later is checked one way wherever it is given: the
host endpoint, the audit drain and an OIDC issuer refuse the same URLs with a
422 naming their field, and keep the URL without surrounding white space
(``switchboard.outbound_urls``). No process."""

from __future__ import annotations

import pytest
from django.test import override_settings

from outbox.services import host_endpoint_set
from switchboard.actors import Actor
from switchboard.errors import Invalid
from switchboard.outbound_urls import outbound_url_checked
from switchboard.services.audit_drain import audit_drain_set
from switchboard.services.hosts import host_create
from switchboard.sso.connections import ConnectionIn, sso_connection_save

SYSTEM = Actor.system("tests")
NOT_HTTP = ["", "   ", "ftp://example.com/x", "example.com/x", "https://" + "a" * 2000]


@pytest.mark.parametrize("url", NOT_HTTP)
def test_what_is_not_an_http_url_of_at_most_2000_characters_is_refused(url):
    with pytest.raises(Invalid) as refused:
        outbound_url_checked(url, field="issuer")
    assert refused.value.field == "issuer" and refused.value.status == 422
    assert "issuer must be an http(s) URL" in refused.value.message


@override_settings(ALLOW_PRIVATE_TARGETS=False)
def test_an_address_the_guard_refuses_is_refused_as_a_blocked_target():
    with pytest.raises(Invalid) as refused:
        outbound_url_checked("https://10.1.2.3/hook")
    assert (refused.value.field, refused.value.code) == ("url", "blocked_target")


def test_the_url_is_kept_without_surrounding_white_space():
    assert outbound_url_checked("  http://127.0.0.1:9/hook \n") == "http://127.0.0.1:9/hook"


def _endpoint(host, url):
    host_endpoint_set(host=host, url=url, actor=SYSTEM)


def _drain(host, url):
    audit_drain_set(host=host, url=url, format="jsonl", actor=SYSTEM)


def _issuer(host, url):
    data = ConnectionIn(
        issuer=url,
        client_id="switchboard",
        client_secret="secret",
        email_domains=["example.com"],
        role_claim="groups",
        admin_values=["admins"],
        auditor_values=[],
        enabled=True,
    )
    sso_connection_save(host=host, data=data, actor=SYSTEM)


@pytest.mark.django_db
@pytest.mark.parametrize("given, field", [(_endpoint, "url"), (_drain, "url"), (_issuer, "issuer")])
@pytest.mark.parametrize("url", ["ftp://example.com/x", "https://" + "a" * 2000])
def test_each_place_a_url_is_given_refuses_it_the_same_way(given, field, url):
    host, _ = host_create(name="Acme", actor=SYSTEM)
    with pytest.raises(Invalid) as refused:
        given(host, url)
    assert refused.value.field == field
    assert refused.value.message == f"{field} must be an http(s) URL of at most 2000 characters"
