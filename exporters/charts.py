"""Charts: the rating distribution of a list (inline SVG, no library needed for bars) and a
player's rating over time (matplotlib, as SVG or PNG)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import date
from html import escape

from ratings.wording import counted


def histogram_svg(
    ratings: Sequence[int], *, width: int = 640, height: int = 220, bin_size: int = 50
) -> str:
    """Bars of how many players have a (whole-number) rating in each ``bin_size`` band."""
    if not ratings:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>'
    low = min(ratings) // bin_size * bin_size
    high = max(ratings) // bin_size * bin_size
    bins = list(range(low, high + bin_size, bin_size))
    counts = [0] * len(bins)
    for value in ratings:
        counts[(value - low) // bin_size] += 1
    top = max(counts)
    bar = (width - 40) / len(bins)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="Rating distribution" class="histogram">'
    ]
    for i, (start, count) in enumerate(zip(bins, counts, strict=True)):
        h = 0 if top == 0 else (height - 40) * count / top
        x = 30 + i * bar
        y = height - 25 - h
        label = escape(f"{start}–{start + bin_size - 1}: {counted(count, 'player')}")
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(bar - 1, 1):.1f}" height="{h:.1f}">'
            f"<title>{label}</title></rect>"
        )
    step = max(1, len(bins) // 8)
    parts.extend(
        f'<text x="{30 + i * bar:.1f}" y="{height - 8}" font-size="10">{bins[i]}</text>'
        for i in range(0, len(bins), step)
    )
    parts.append(f'<text x="2" y="12" font-size="10">{counted(top, "player")}</text></svg>')
    return "".join(parts)


def history_svg(
    days: Sequence[date],
    ratings: Sequence[float],
    *,
    title: str,
    width: int = 600,
    height: int = 300,
) -> bytes:
    """The rating after each tournament over time as a small SVG drawn from text, the chart a
    player's page shows: a step line held from one event to the next, a dot at each event, the
    rating on a scale of round numbers and the months below. A page's chart is drawn for every
    visitor, so it must cost a millisecond, not the tenth of a second of one core (and pyplot's
    global state) that :func:`history_chart` takes; the downloads keep matplotlib's."""
    # Drawn at 600 by 300 with 16-pixel lettering, so that on a phone, where the image is
    # scaled to the screen's width (about 360 pixels), the labels still read at about 10.
    left, right, top, bottom = 64, 16, 34, 48
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="sans-serif" font-size="16">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="white" '
        'stroke="#444"/>',
        f'<text x="{width / 2:.0f}" y="22" text-anchor="middle" font-size="17">'
        f"{escape(title)}</text>",
    ]
    if days:
        x0, x1 = days[0].toordinal(), days[-1].toordinal()
        if x1 == x0:
            x0, x1 = x0 - 15, x1 + 15
        low, high, step = _rating_scale(min(ratings), max(ratings))

        def x(day: date) -> float:
            return left + (day.toordinal() - x0) / (x1 - x0) * plot_w

        def y(value: float) -> float:
            return top + (high - value) / (high - low) * plot_h

        tick = low
        while tick <= high + step / 2:
            parts.append(
                f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                f'stroke="#ddd"/><text x="{left - 6}" y="{y(tick) + 5:.1f}" text-anchor="end">'
                f"{tick:g}</text>"
            )
            tick += step
        parts.extend(
            f'<text x="{x(month):.1f}" y="{top + plot_h + 22}" text-anchor="middle">'
            f"{month:%Y-%m}</text>"
            for month in _months(date.fromordinal(x0), date.fromordinal(x1))
        )
        path = [f"M{x(days[0]):.1f},{y(ratings[0]):.1f}"]
        for day, rating in zip(days[1:], ratings[1:], strict=True):
            path.append(f"H{x(day):.1f}V{y(rating):.1f}")
        parts.append(f'<path d="{"".join(path)}" fill="none" stroke="#1f5fa8" stroke-width="1.6"/>')
        parts.extend(
            f'<circle cx="{x(day):.1f}" cy="{y(rating):.1f}" r="2.5" fill="#1f5fa8"/>'
            for day, rating in zip(days, ratings, strict=True)
        )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2:.0f}" transform="rotate(-90 14 {top + plot_h / 2:.0f})" '
        'text-anchor="middle">rating</text></svg>'
    )
    return "".join(parts).encode("utf-8")


def _rating_scale(low: float, high: float) -> tuple[float, float, float]:
    """Round bounds around ``low``..``high`` and a step of 1, 2 or 5 times a power of ten that
    cuts them into four to eight bands."""
    span = max(high - low, 1.0)
    step = 1.0
    for power in range(0, 7):
        for factor in (1, 2, 5):
            step = factor * 10.0**power
            if span / step <= 6:
                break
        else:
            continue
        break
    bottom = (low // step) * step
    top = -((-high) // step) * step
    if top == bottom:
        top += step
    return bottom, top, step


def _months(first: date, last: date) -> list[date]:
    """First days of months between ``first`` and ``last``, at most six, evenly spaced (six
    labels of seven letters fit the page's chart without touching)."""
    months = []
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        day = date(year, month, 1)
        if first <= day <= last:
            months.append(day)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    every = max(1, -(-len(months) // 6))
    return months[::every]


def history_chart(days: Sequence[date], ratings: Sequence[float], *, title: str, fmt: str) -> bytes:
    """The rating after each tournament over time, as ``svg`` or ``png`` bytes."""
    # matplotlib takes a second to import: only commands that draw pay for it.
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 3.2), dpi=100)
    try:
        if days:
            x = mdates.date2num(list(days))  # type: ignore[no-untyped-call]
            axes.step(x, list(ratings), where="post", color="#1f5fa8", linewidth=1.6)
            axes.plot(x, list(ratings), "o", color="#1f5fa8", markersize=3)
            axes.xaxis_date()
        axes.set_title(title, fontsize=11)
        axes.set_ylabel("rating")
        axes.grid(True, alpha=0.3)
        axes.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m"))  # type: ignore[no-untyped-call]
        figure.autofmt_xdate()
        figure.tight_layout()
        buffer = io.BytesIO()
        # A fixed date in the metadata keeps the same history's chart byte-for-byte the same.
        metadata = {"Date": None} if fmt == "svg" else {}
        figure.savefig(buffer, format=fmt, metadata=metadata)
        return buffer.getvalue()
    finally:
        plt.close(figure)
