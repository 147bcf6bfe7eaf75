import json
from datetime import UTC, datetime

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html

from switchboard import labels

register = template.Library()


@register.filter
def pretty_json(value) -> str:
    """Untrusted JSON shown as text: indented, never interpreted. The result is
    a plain string, so autoescaping still applies where it is rendered."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, cls=DjangoJSONEncoder)


# --- Words, not codes -----------------------------------------------------------


def audience_of(context) -> labels.Audience | None:
    """Who the page speaks to. Templates rendered for a live update say so with
    ``staff``/``for_staff``; pages have the request's user. None when unknown
    (the words then fit both)."""
    explicit = context.get("audience")
    if explicit in ("user", "staff"):
        return explicit
    for key in ("staff", "for_staff"):
        if key in context and context[key] is not None and context[key] != "":
            return "staff" if context[key] else "user"
    if "viewer_is_user" in context:
        return "user" if context["viewer_is_user"] else "staff"
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return "staff" if getattr(user, "is_host_staff", False) else "user"
    return None


def _words(domain: str, value, audience) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(labels.label(domain, v, audience) for v in value)
    return labels.label(domain, value, audience)


@register.simple_tag(takes_context=True)
def label(context, domain: str, value) -> str:
    """``{% label "grant_status" grant.status %}``: the plain words for a code,
    speaking to this page's reader. A list gives its words joined by commas."""
    return _words(domain, value, audience_of(context))


@register.filter
def words(value, spec: str) -> str:
    """``{{ grant.scope|words:"scope" }}`` or ``…|words:"scope:user"``: the
    filter form of ``label`` for places a tag cannot go (attributes, ``with``)."""
    domain, _, audience = spec.partition(":")
    return _words(domain, value, audience or None)


# --- One date format ---------------------------------------------------------------

_UNITS = (
    ("year", 365 * 86400),
    ("month", 30 * 86400),
    ("day", 86400),
    ("hour", 3600),
    ("minute", 60),
)


def relative_text(moment: datetime, now: datetime | None = None) -> str:
    """ "just now", "5 minutes ago", "in 2 hours", … The same rules as
    static/js/time.js, which keeps the text current in the browser."""
    now = now or timezone.now()
    seconds = (moment - now).total_seconds()
    past = seconds <= 0
    seconds = abs(seconds)
    if seconds < 45:
        return "just now" if past else "in a few seconds"
    for name, size in _UNITS:
        count = round(seconds / size)
        if count >= 1:
            unit = name if count == 1 else f"{name}s"
            return f"{count} {unit} ago" if past else f"in {count} {unit}"
    return "just now"  # unreachable: a minute or more always matches


def _as_datetime(value) -> datetime | None:
    moment: datetime | None = None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and value:
        moment = parse_datetime(value)
    if moment is None:
        return None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, UTC)
    return moment


@register.simple_tag
def when(value, empty: str = "—"):
    """Every date on every page: ``<time datetime="ISO" title="exact">relative</time>``.
    The title is the exact time in the server's zone; static/js/time.js puts
    it in the reader's own zone and keeps the relative text current."""
    moment = _as_datetime(value)
    if moment is None:
        return empty
    local = timezone.localtime(moment)
    exact = local.strftime("%d %b %Y, %H:%M:%S %Z").lstrip("0")
    return format_html(
        '<time datetime="{}" title="{}" data-relative>{}</time>',
        moment.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        exact,
        relative_text(moment),
    )
