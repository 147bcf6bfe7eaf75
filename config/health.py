"""The staff health page: what every part knows, drawn at a glance. It
gathers from the outbox, subscriptions, consent and hooks, so it lives on
the top floor; the drawing is ``switchboard.charts``."""

from __future__ import annotations

from datetime import timedelta

from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from consent.selectors import conversation_chars_per_day, conversation_outcomes_by_server
from hooks.selectors import hook_chars_per_day
from outbox.selectors import attempts_by_stream, attempts_per_minute, endpoint_of
from subscriptions.selectors import push_streams_summary, refresh_lags, servers_of_streams
from switchboard.charts import Bar, Segment, column_chart, row_chart
from switchboard.views.access import staff_required

MINUTES = 30
DAYS = 14


def _deliveries(host) -> dict:
    minutes = attempts_per_minute(host=host, minutes=MINUTES)
    bars = [
        Bar(
            label=f"{m:%H:%M}" if i % 5 == 0 else "",
            title=f"{m:%H:%M} UTC: {ok} delivered, {failed} failed",
            segments=[Segment("good", ok), Segment("bad", failed)],
        )
        for i, (m, ok, failed) in enumerate(minutes)
    ]
    ok = sum(row[1] for row in minutes)
    failed = sum(row[2] for row in minutes)
    return {
        "chart": column_chart(
            label=f"Delivery attempts per minute, last {MINUTES} minutes",
            bars=bars,
            legend={"good": "delivered", "bad": "failed"},
            empty=f"No delivery attempts in the last {MINUTES} minutes.",
        ),
        "ok": ok,
        "failed": failed,
        "rate": round(100 * failed / (ok + failed)) if ok + failed else None,
    }


def _by_server(host, since) -> dict:
    per_stream = attempts_by_stream(host=host, since=since)
    names = servers_of_streams(host=host, streams=[s for s in per_stream if s])
    per_server: dict[str, list[int]] = {}
    for stream, (ok, failed) in per_stream.items():
        name = names.get(stream, "Host notices") if stream else "Host notices"
        slot = per_server.setdefault(name, [0, 0])
        slot[0] += ok
        slot[1] += failed
    rows = sorted(per_server.items(), key=lambda kv: (-kv[1][1], kv[0]))
    return {
        "chart": row_chart(
            label="Delivery attempts per server, last 24 hours",
            bars=[
                Bar(
                    label=name,
                    title=f"{name}: {ok} delivered, {failed} failed",
                    segments=[Segment("good", ok), Segment("bad", failed)],
                )
                for name, (ok, failed) in rows
            ],
            legend={"good": "delivered", "bad": "failed"},
        )
        if rows
        else None,
        "rows": [
            {"name": n, "ok": ok, "failed": f, "rate": round(100 * f / (ok + f)) if ok + f else 0}
            for n, (ok, f) in rows
        ],
    }


def _conversations(host, since) -> dict:
    outcomes = conversation_outcomes_by_server(host=host, since=since)
    rows = sorted(outcomes.items(), key=lambda kv: (-kv[1].get("timeout", 0), kv[0]))
    bars = [
        Bar(
            label=name,
            title=f"{name}: {o.get('ok', 0)} answered, {o.get('timeout', 0)} timed out, "
            f"{o.get('error', 0) + o.get('over_budget', 0)} other",
            segments=[
                Segment("good", o.get("ok", 0)),
                Segment("bad", o.get("timeout", 0)),
                Segment("other", o.get("error", 0) + o.get("over_budget", 0)),
            ],
        )
        for name, o in rows
    ]
    return {
        "chart": row_chart(
            label="Conversation calls per server, last 24 hours",
            bars=bars,
            legend={"good": "answered", "bad": "timed out", "other": "error or over budget"},
        )
        if bars
        else None,
        "rows": [{"name": n, **o} for n, o in rows],
    }


def _injected(host) -> dict:
    today = timezone.now().date()
    days = [today - timedelta(days=DAYS - 1 - i) for i in range(DAYS)]
    talk = conversation_chars_per_day(host=host, days=DAYS)
    hooks = hook_chars_per_day(host=host, days=DAYS)
    bars = [
        Bar(
            label=f"{day:%d}" if i % 2 == 0 else "",
            title=f"{day:%Y-%m-%d}: {talk.get(day, 0)} characters of conversation context, "
            f"{hooks.get(day, 0)} from hooks",
            segments=[Segment("good", talk.get(day, 0)), Segment("other", hooks.get(day, 0))],
        )
        for i, day in enumerate(days)
    ]
    return {
        "chart": column_chart(
            label=f"Characters injected per day, last {DAYS} days",
            bars=bars,
            legend={"good": "conversation context", "other": "hooks"},
            empty=f"No context injected in the last {DAYS} days.",
        ),
        "total": sum(talk.values()) + sum(hooks.values()),
    }


@require_GET
@staff_required
def health(request):
    host = request.user.host
    since = timezone.now() - timedelta(hours=24)
    context = {
        "nav": "staff",
        "endpoint": endpoint_of(host=host),
        "deliveries": _deliveries(host),
        "by_server": _by_server(host, since),
        "conversations": _conversations(host, since),
        "injected": _injected(host),
        "streams": push_streams_summary(host=host),
        "lags": refresh_lags(host=host),
    }
    return render(request, "staff/health.html", context)
