"""Small charts drawn on the server as SVG, for the staff health page.

No chart library and no script: the page's CSP allows neither inline code
nor other origins, and a re-read of a live region simply brings a new
drawing. Readable without colour: every kind of segment has its own fill
pattern (solid, hatched, dotted) named in the legend, each bar carries its
numbers in a ``<title>`` (a tooltip and what screen readers announce), and
the page prints the same figures as a table beside the chart.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

# Segment kinds -> (CSS class, legend pattern id): the look is in
# static/css/switchboard.css, the pattern shapes below.
KINDS = ("good", "bad", "other")

_DEFS = (
    "<defs>"
    '<pattern id="chart-hatch" width="6" height="6" patternUnits="userSpaceOnUse"'
    ' patternTransform="rotate(45)"><rect width="6" height="6" class="chart-bad-ground"/>'
    '<line x1="0" y1="0" x2="0" y2="6" class="chart-bad-line"/></pattern>'
    '<pattern id="chart-dots" width="5" height="5" patternUnits="userSpaceOnUse">'
    '<rect width="5" height="5" class="chart-other-ground"/>'
    '<circle cx="2.5" cy="2.5" r="1.2" class="chart-other-dot"/></pattern>'
    "</defs>"
)
_FILL = {"good": "", "bad": ' fill="url(#chart-hatch)"', "other": ' fill="url(#chart-dots)"'}


@dataclass
class Segment:
    kind: str  # one of KINDS
    value: float


@dataclass
class Bar:
    label: str  # under the bar (may be "")
    title: str  # the tooltip: the bar's figures in words
    segments: list[Segment] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(s.value for s in self.segments)


def column_chart(
    *, label: str, bars: list[Bar], legend: dict[str, str], empty: str, height: int = 140
) -> SafeString:
    """Stacked columns, one per bar, on a shared scale (0 to the largest).
    With nothing to draw, the ``empty`` sentence instead: an axis scaled to
    an invented 1 would suggest a figure that is not there."""
    top = max((bar.total for bar in bars), default=0)
    if not top:
        return empty_chart(label=label, empty=empty)
    width, gap, axis = max(len(bars), 1) * 14, 2, 18
    parts = [_DEFS]
    for i, bar in enumerate(bars):
        x, y = i * 14 + gap, float(height)
        column = [f"<title>{escape(bar.title)}</title>"]
        for segment in bar.segments:
            h = segment.value / top * (height - 4)
            if h <= 0:
                continue
            y -= h
            column.append(
                f'<rect x="{x}" y="{y:.1f}" width="{14 - 2 * gap}" height="{h:.1f}"'
                f' class="chart-{segment.kind}"{_FILL[segment.kind]}/>'
            )
        parts.append(f'<g class="chart-bar" data-total="{bar.total:g}">{"".join(column)}</g>')
        if bar.label:
            parts.append(
                f'<text x="{x}" y="{height + 13}" class="chart-axis">{escape(bar.label)}</text>'
            )
    parts.append(
        f'<text x="{width + 2}" y="10" class="chart-axis">{top:g}</text>'
        f'<line x1="0" y1="{height}" x2="{width}" y2="{height}" class="chart-baseline"/>'
    )
    return _svg(label, width + 40, height + axis, parts, legend)


def empty_chart(*, label: str, empty: str) -> SafeString:
    """Where a chart would be, the sentence that says there is nothing yet."""
    return format_html(
        '<figure class="chart" data-chart-empty aria-label="{}"><p class="empty">{}</p></figure>',
        label,
        empty,
    )


def row_chart(*, label: str, bars: list[Bar], legend: dict[str, str]) -> SafeString:
    """Horizontal stacked bars with their label on the left, scaled to 100 %
    of the longest (for shares: failure rates, outcomes per server)."""
    row, name_width, bar_width = 22, 150, 260
    top = max((bar.total for bar in bars), default=0) or 1
    parts = [_DEFS]
    for i, bar in enumerate(bars):
        y = i * row
        group = [f"<title>{escape(bar.title)}</title>"]
        x = float(name_width)
        for segment in bar.segments:
            w = segment.value / top * bar_width
            if w <= 0:
                continue
            group.append(
                f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="{row - 8}"'
                f' class="chart-{segment.kind}"{_FILL[segment.kind]}/>'
            )
            x += w
        group.append(
            f'<text x="0" y="{y + row - 8}" class="chart-axis">{escape(bar.label[:24])}</text>'
        )
        parts.append(f'<g class="chart-bar" data-total="{bar.total:g}">{"".join(group)}</g>')
    return _svg(label, name_width + bar_width + 10, max(len(bars), 1) * row, parts, legend)


def _svg(label: str, width: float, height: float, parts: list[str], legend: dict) -> SafeString:
    swatches = "".join(
        f'<li><svg width="14" height="14" aria-hidden="true">{_DEFS}'
        f'<rect width="14" height="14" class="chart-{kind}"{_FILL[kind]}/></svg> {escape(text)}</li>'
        for kind, text in legend.items()
    )
    return mark_safe(  # noqa: S308 — every text above went through escape()
        f'<figure class="chart"><svg role="img" aria-label="{escape(label)}"'
        f' viewBox="0 0 {width:.0f} {height:.0f}" preserveAspectRatio="xMinYMin meet">'
        f'{"".join(parts)}</svg><figcaption><ul class="chart-legend">{swatches}</ul>'
        "</figcaption></figure>"
    )
