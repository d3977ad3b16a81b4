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
    for i in range(0, len(bins), step):
        parts.append(
            f'<text x="{30 + i * bar:.1f}" y="{height - 8}" font-size="10">{bins[i]}</text>'
        )
    parts.append(f'<text x="2" y="12" font-size="10">{counted(top, "player")}</text></svg>')
    return "".join(parts)


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
