"""Words, not codes: every choice a model stores has plain words, one table for
every page, speaking to "you" on user pages and of "the user" on staff pages."""

import html
from datetime import UTC, timedelta

import pytest
from django.apps import apps
from django.template import Context, Template
from django.utils import timezone

from switchboard import labels
from switchboard.templatetags.switchboard_tags import relative_text

OUR_APPS = ("switchboard", "outbox", "consent", "subscriptions", "hooks")


def choice_fields():
    for model in apps.get_models():
        if model._meta.app_label not in OUR_APPS:
            continue
        for field in model._meta.get_fields():
            if getattr(field, "choices", None):
                yield f"{model._meta.label}.{field.name}", field


def test_every_choice_field_of_our_models_has_a_words_domain():
    missing = [key for key, _ in choice_fields() if key not in labels.FIELD_DOMAINS]
    assert not missing, f"add these fields to switchboard.labels.FIELD_DOMAINS: {missing}"


@pytest.mark.parametrize(
    "key,field", list(choice_fields()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_stored_value_has_words_for_users_and_staff(key, field):
    domain = labels.DOMAINS[labels.FIELD_DOMAINS[key]]
    for value, _ in field.choices:
        assert value in domain, f"{key}: no words for {value!r} in switchboard.labels"
        for audience in ("user", "staff", None):
            words = labels.label(labels.FIELD_DOMAINS[key], value, audience)
            assert words, f"{key}: empty words for {value!r}"
            assert "_" not in words and words != value, f"{key}: {value!r} is shown as a code"


def test_the_table_has_no_words_for_values_the_models_no_longer_store():
    stored: dict[str, set[str]] = {}
    for key, field in choice_fields():
        stored.setdefault(labels.FIELD_DOMAINS[key], set()).update(v for v, _ in field.choices)
    for domain, table in labels.DOMAINS.items():
        assert set(table) == stored.get(domain, set()), domain


def test_the_brief_examples_and_the_audiences():
    assert labels.label("subscription_status", "pending_consent", "staff") == "Waiting for the user"
    assert (
        labels.label("subscription_status", "pending_consent", "user") == "Waiting for your answer"
    )
    assert labels.label("scope", "conversation:read", "user") == "Read your messages"
    assert labels.label("scope", "conversation:read", "staff") == "Read the user's messages"


def test_the_consent_page_headings_use_the_same_words():
    from consent.presenters import SCOPE_TITLES

    for scope, title in SCOPE_TITLES.items():
        assert labels.label("scope", scope, "user") == title


class _Viewer:
    is_authenticated = True

    def __init__(self, staff: bool):
        self.is_host_staff = staff


class _Request:
    def __init__(self, staff: bool):
        self.user = _Viewer(staff)


@pytest.mark.parametrize(
    "context,expected",
    [
        ({"request": _Request(staff=False)}, "Read your messages"),
        ({"request": _Request(staff=True)}, "Read the user's messages"),
        ({"request": _Request(staff=True), "staff": False}, "Read your messages"),
        ({"for_staff": True}, "Read the user's messages"),
        ({}, "Read messages"),
    ],
)
def test_the_label_tag_speaks_to_the_pages_reader(context, expected):
    template = Template('{% load switchboard_tags %}{% label "scope" scope %}')
    rendered = template.render(Context({"scope": "conversation:read", **context}))
    assert html.unescape(rendered) == expected


def test_the_label_tag_joins_lists_and_the_filter_takes_an_audience():
    template = Template(
        '{% load switchboard_tags %}{% label "scope" scopes %}|{{ s|words:"scope:staff" }}'
    )
    out = template.render(Context({"scopes": ["events", "hooks"], "s": "events"}))
    assert (
        html.unescape(out)
        == "Send events from outside, Add instructions at moments of an agent session|Send the user events from outside"
    )


def test_one_date_format_a_time_element_with_iso_and_relative_text():
    moment = timezone.now() - timedelta(minutes=5)
    out = Template("{% load switchboard_tags %}{% when at %}").render(Context({"at": moment}))
    assert out.startswith('<time datetime="') and "data-relative" in out
    iso = moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    assert f'datetime="{iso}"' in out
    assert ">5 minutes ago</time>" in out
    assert Template("{% load switchboard_tags %}{% when at %}").render(Context({"at": None})) == "—"


@pytest.mark.parametrize(
    "delta,text",
    [
        (timedelta(seconds=-10), "just now"),
        (timedelta(minutes=-1), "1 minute ago"),
        (timedelta(hours=-3), "3 hours ago"),
        (timedelta(days=2), "in 2 days"),
        (timedelta(days=-400), "1 year ago"),
    ],
)
def test_relative_text(delta, text):
    now = timezone.now()
    assert relative_text(now + delta, now) == text
