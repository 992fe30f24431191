"""Server-side SVG charts for the dashboard: bars, a line over time, a calibration curve.

Each function returns inline SVG as :class:`markupsafe.Markup`, ready to drop into an
autoescaped template. Every piece of text that comes from data is escaped here; numbers
are formatted here. Colours and fonts come from ``dashboard.css`` through class names,
so the charts need no script, no web font and nothing from another host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from markupsafe import Markup, escape

__all__ = ["bar_chart", "calibration_chart", "line_chart", "reliability_chart"]

_BAR_ROW = 26
_BAR_LABEL = 120
_BAR_WIDTH = 420


def bar_chart(items: Sequence[tuple[str, int]], *, name: str, title: str) -> Markup:
    """Horizontal bars, one per ``(label, count)``, each with its count and share."""
    total = sum(count for _, count in items)
    if not items or total <= 0:
        return Markup('<p class="empty">nothing to chart</p>')
    top = max(count for _, count in items)
    span = _BAR_WIDTH - _BAR_LABEL - 90
    height = _BAR_ROW * len(items) + 8
    parts = [_open_svg(name, title, _BAR_WIDTH, height)]
    for row, (label, count) in enumerate(items):
        y = 4 + row * _BAR_ROW
        width = max(2.0, span * count / top)
        share = count / total
        parts.append(
            f'<text class="axis-label" x="{_BAR_LABEL - 8}" y="{y + 16}" '
            f'text-anchor="end">{escape(label)}</text>'
            f'<rect class="bar bar-{_slug(label)}" x="{_BAR_LABEL}" y="{y + 3}" '
            f'width="{width:.1f}" height="{_BAR_ROW - 8}" rx="3">'
            f"<title>{escape(label)}: {count} ({share:.0%})</title></rect>"
            f'<text class="value-label" x="{_BAR_LABEL + width + 6:.1f}" y="{y + 16}">'
            f"{count} · {share:.0%}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def line_chart(
    points: Sequence[tuple[str, float | None]],
    *,
    name: str,
    title: str,
    bands: tuple[float, float] | None = None,
    granularity: str = "hour",
) -> Markup:
    """Mean confidence per time bucket on a 0..1 axis; ``None`` is a bucket with no events.

    ``bands`` (medium, high) shades the low / medium / high label bands behind the line.
    """
    known = [(i, v) for i, (_, v) in enumerate(points) if v is not None]
    if not known:
        return Markup('<p class="empty">no events to chart</p>')
    width, height, left, right, top, bottom = 480, 210, 40, 58, 12, 34
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (plot_w / 2 if len(points) == 1 else plot_w * i / (len(points) - 1))

    def y(v: float) -> float:
        return top + plot_h * (1.0 - min(max(v, 0.0), 1.0))

    parts = [_open_svg(name, title, width, height)]
    if bands is not None:
        medium, high = bands
        for label, low_v, high_v in (("low", 0.0, medium), ("medium", medium, high),
                                     ("high", high, 1.0)):  # fmt: skip
            parts.append(
                f'<rect class="band band-{label}" x="{left}" y="{y(high_v):.1f}" '
                f'width="{plot_w}" height="{y(low_v) - y(high_v):.1f}"/>'
                f'<text class="band-label" x="{left + plot_w + 6}" '
                f'y="{(y(low_v) + y(high_v)) / 2 + 4:.1f}">{label}</text>'
            )
    parts.extend(_y_axis(y, left, plot_w))
    parts.append(_path(known, x, y))
    step = "hour" if granularity == "hour" else "day"
    for i, v in known:
        when, count_note = _when(points[i][0], granularity), f"mean confidence {v:.3f}"
        parts.append(
            f'<circle class="point" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5">'
            f"<title>{escape(when)} ({step}): {count_note}</title></circle>"
        )
        if len(known) <= 8:  # few points: say each value beside it
            parts.append(
                f'<text class="point-label" x="{x(i) + 7:.1f}" y="{y(v) - 7:.1f}">{v:.3f}</text>'
            )
    for i in sorted({0, len(points) - 1}):
        anchor = "middle" if len(points) == 1 else ("start" if i == 0 else "end")
        parts.append(
            f'<text class="axis-label" x="{x(i):.1f}" y="{height - 12}" '
            f'text-anchor="{anchor}">{escape(_when(points[i][0], granularity))}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def calibration_chart(
    curve: Sequence[tuple[float, float]], *, name: str, title: str, method: str
) -> Markup:
    """A calibration map as a curve from raw score (x) to calibrated probability (y),
    beside the diagonal of a map that changes nothing."""
    if len(curve) < 2:
        return Markup('<p class="empty">the map has too few points to draw</p>')
    square = _UnitSquare(name, title, "raw score")
    line = " ".join(f"{square.x(a):.1f},{square.y(b):.1f}" for a, b in curve)
    return square.close(
        f'<polyline class="curve" points="{line}"><title>{escape(method)} map</title></polyline>'
    )


def reliability_chart(
    points: Sequence[tuple[float, float, int]], *, name: str, title: str
) -> Markup:
    """``(mean confidence, share correct, count)`` per bin as dots (larger for more
    answers) beside the diagonal of a confidence that means what it says."""
    if not points:
        return Markup('<p class="empty">no reviewed answers yet</p>')
    square, most = _UnitSquare(name, title, "confidence given"), max(n for _, _, n in points)
    dots = []
    for score, correct, n in points:
        radius = 3 + 5 * (n / most) ** 0.5
        label = f"confidence {score:.2f}: {correct:.0%} of {n} reviewed answers correct"
        dots.append(
            f'<circle class="point" cx="{square.x(score):.1f}" cy="{square.y(correct):.1f}" '
            f'r="{radius:.1f}"><title>{escape(label)}</title></circle>'
        )
    return square.close("".join(dots))


class _UnitSquare:
    """A chart of [0, 1] against [0, 1]: axes, ticks, the diagonal and an x-axis title;
    :meth:`close` adds what is drawn in it."""

    size, left, top, bottom = 260, 40, 10, 38
    plot = size - left - 12

    def __init__(self, name: str, title: str, x_title: str) -> None:
        self.x_title = x_title
        self.parts = [_open_svg(name, title, self.size, self.top + self.plot + self.bottom)]
        self.parts.extend(_y_axis(self.y, self.left, self.plot))
        for tick in (0.0, 0.5, 1.0):
            self.parts.append(
                f'<text class="axis-label" x="{self.x(tick):.1f}" y="{self.top + self.plot + 16}" '
                f'text-anchor="middle">{tick:g}</text>'
            )
        x0, y0, x1, y1 = self.x(0), self.y(0), self.x(1), self.y(1)
        self.parts.append(
            f'<line class="diagonal" x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}"/>'
        )

    def x(self, v: float) -> float:
        return self.left + self.plot * min(max(v, 0.0), 1.0)

    def y(self, v: float) -> float:
        return self.top + self.plot * (1.0 - min(max(v, 0.0), 1.0))

    def close(self, drawn: str) -> Markup:
        """The chart with ``drawn`` (SVG elements) inside it."""
        title_x, title_y = self.left + self.plot / 2, self.top + self.plot + 32
        self.parts.append(
            f'{drawn}<text class="axis-title" x="{title_x:.1f}" y="{title_y}" '
            f'text-anchor="middle">{escape(self.x_title)}</text></svg>'
        )
        return Markup("".join(self.parts))


def _open_svg(name: str, title: str, width: int, height: int) -> str:
    return (
        f'<svg class="chart" data-chart="{escape(name)}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
    )


def _y_axis(y: Callable[[float], float], left: int, plot_w: int) -> list[str]:
    out = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(
            f'<line class="grid" x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" '
            f'y2="{y(tick):.1f}"/><text class="axis-label" x="{left - 6}" '
            f'y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>'
        )
    return out


def _path(
    known: Sequence[tuple[int, float]],
    x: Callable[[int], float],
    y: Callable[[float], float],
) -> str:
    """The line through the known points; a bucket with no events breaks it."""
    commands, previous = [], None
    for i, v in known:
        move = "L" if previous is not None and i == previous + 1 else "M"
        commands.append(f"{move}{x(i):.1f},{y(v):.1f}")
        previous = i
    return f'<path class="line" d="{" ".join(commands)}"/>'


def _when(start: str, granularity: str) -> str:
    """A bucket's start as a short UTC label."""
    try:
        moment = datetime.fromisoformat(start)
    except ValueError:
        return start
    return moment.strftime("%Y-%m-%d" if granularity == "day" else "%m-%d %H:00 UTC")


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label.lower())[:32]
