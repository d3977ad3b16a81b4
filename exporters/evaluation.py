"""The evaluation of a rated history (:mod:`ratings.evaluation`) as JSON, CSV, text and HTML, with
its charts: the calibration curve, MELO's change against the per-game change, the k sweep and the
pool's mean over time (SVG drawn by matplotlib; small text charts for the terminal)."""

from __future__ import annotations

import io
import json
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from exporters.html import TEMPLATES, page_environment

FORMATS = ("text", "json", "csv", "html")

F64 = npt.NDArray[np.float64]


def write_evaluation(
    figures: dict[str, Any], change: F64, change_by_games: F64, fmt: str, stream: IO[bytes]
) -> None:
    if fmt == "json":
        stream.write(json.dumps(figures, indent=2).encode("utf-8") + b"\n")
    elif fmt == "csv":
        stream.write(evaluation_csv(figures).encode("utf-8"))
    elif fmt == "text":
        stream.write(evaluation_text(figures, change, change_by_games).encode("utf-8"))
    elif fmt == "html":
        page = page_environment(TEMPLATES).get_template("evaluation.html.j2")
        charts = evaluation_charts(figures, change, change_by_games)
        text = page.render(
            title="How good is the list", f=figures, charts=charts, lines=summary(figures)
        )
        stream.write(text.encode("utf-8"))
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")


def _number(value: Any, digits: int = 6) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def summary(f: dict[str, Any]) -> list[tuple[str, str]]:
    """The headline figures as (label, value) lines."""
    dates = f"{f['from'] or 'the first event'} to {f['to'] or 'the last'}"
    claims = f["claims"]
    pool = claims["pool_mean"]
    lines = [
        ("events ending", dates),
        ("results (N >= 1)", str(f["results"])),
        ("games in them", str(f["games"])),
        ("score error per game (score_mse)", _number(f["score_mse"])),
        ("per-game Brier score", _number(f["game_brier"])),
        ("games of crosstable events", str(f["game_count"])),
        ("pool mean drift, last month", _number(pool["last_drift"], 4)),
        ("pool mean drift, largest", _number(pool["largest_drift"], 4)),
    ]
    lines.extend(
        (
            f"score at {claim['difference']} points ahead ({claim['low']} to {claim['high']})",
            f"{_number(claim['observed'], 3)} observed, {_number(claim['formula'], 3)} by "
            f"the formula, {claim['claimed']:.2f} claimed, {claim['games']} games",
        )
        for claim in claims["score_at_difference"]
    )
    for tier, k in f["suggested_k"].items():
        ks = [r["k"] for r in f["k_sweep"] if r["tier"] == tier]
        if len(ks) > 1 and k in (min(ks), max(ks)):
            lines.append(
                (
                    "note",
                    f"{tier}: the least error is at the end of the sweep (k {k}), perhaps beyond",
                )
            )
    if f.get("stale"):
        lines.append(("note", "tournaments wait for a run: figures of the history as last rated"))
    if f["parameters"]["rated_with_other_k"]:
        lines.append(("note", "some events were rated with other k than configured now"))
    return lines


def evaluation_csv(f: dict[str, Any]) -> str:
    """Every figure as a row ``figure,key,value``: the headline figures, then one group of rows
    per table (calibration bins, tiers, the sweep, the pool's months, the differences, pairs)."""
    out = io.StringIO()
    rows: list[tuple[str, str, Any]] = [
        ("from", "", f["from"]), ("to", "", f["to"]), ("results", "", f["results"]),
        ("games", "", f["games"]), ("score_mse", "", f["score_mse"]),
        ("game_brier", "", f["game_brier"]), ("game_count", "", f["game_count"]),
    ]  # fmt: skip
    for b in f["calibration"]:
        key = f"{b['low']:.1f}-{b['high']:.1f}"
        rows += [(f"calibration.{name}", key, b[name]) for name in ("games", "expected", "actual")]
    for tier, t in f["by_tier"].items():
        rows += [(f"by_tier.{name}", tier, t[name]) for name in ("results", "games", "score_mse")]
    for r in f["k_sweep"]:
        rows.append(("k_sweep.score_mse", f"{r['tier']} k={r['k']}", r["score_mse"]))
    rows += [("suggested_k", tier, k) for tier, k in f["suggested_k"].items()]
    pool = f["claims"]["pool_mean"]
    for m in pool["months"]:
        rows += [
            ("pool_mean.mean", m["month"], m["mean"]),
            ("pool_mean.players", m["month"], m["players"]),
        ]
    for c in f["claims"]["score_at_difference"]:
        rows += [
            (f"score_at_difference.{name}", str(c["difference"]), c[name])
            for name in ("games", "observed", "formula", "claimed")
        ]
    for p in f["claims"]["thousand_games"]["pairs"]:
        key = f"{p['player']} v {p['opponent']}"
        rows += [
            (f"thousand_games.{name}", key, p[name])
            for name in ("games", "score", "gain_from_each_other", "total_gain")
        ]
    out.write("figure,key,value\n")
    for figure, key, value in rows:
        shown = "" if value is None else repr(value) if isinstance(value, float) else str(value)
        out.write(f"{figure},{_csv_cell(key)},{shown}\n")
    return out.getvalue()


def _csv_cell(text: str) -> str:
    return f'"{text}"' if any(c in text for c in ',"\n') else text


def _bar(value: float | None, width: int = 40) -> str:
    if value is None:
        return ""
    return "#" * round(max(0.0, min(1.0, value)) * width)


def evaluation_text(f: dict[str, Any], change: F64, change_by_games: F64) -> str:
    out = io.StringIO()
    width = max(len(label) for label, _ in summary(f))
    for label, value in summary(f):
        out.write(f"{label.ljust(width)}  {value}\n")
    out.write("\ncalibration (E/N bins: # expected, * actual, per 40 columns)\n")
    for b in f["calibration"]:
        out.write(
            f"  {b['low']:.1f}-{b['high']:.1f} {b['games']:>9} games  "
            f"E {_number(b['expected'], 3):>5}  P {_number(b['actual'], 3):>5}\n"
        )
        if b["games"]:  # an empty bin has no bars: its line says so
            out.write(
                f"            {_bar(b['expected'])}\n"
                f"            {_bar(b['actual']).replace('#', '*')}\n"
            )
    out.write("\nby tier as rated\n")
    for tier, t in f["by_tier"].items():
        out.write(
            f"  {tier:<14} {t['results']:>9} results {t['games']:>10} games  score_mse {_number(t['score_mse'])}\n"
        )
    out.write("\nk sweep (score_mse, the whole history re-rated with one tier's k changed)\n")
    sweep = [r for r in f["k_sweep"] if r["score_mse"] is not None]
    if sweep:
        low = min(r["score_mse"] for r in sweep)
        high = max(r["score_mse"] for r in sweep)
        span = (high - low) or 1.0
        for r in f["k_sweep"]:
            mark = " <" if f["suggested_k"].get(r["tier"]) == r["k"] else ""
            today = " (today)" if f["parameters"]["k"][r["tier"]] == r["k"] else ""
            value = r["score_mse"]
            bar = "" if value is None else "=" * (1 + round(30 * (value - low) / span))
            out.write(f"  {r['tier']:<14} k {r['k']:>4}  {_number(value, 8)}  {bar}{mark}{today}\n")
    out.write(f"  suggested: {', '.join(f'{t} {k}' for t, k in f['suggested_k'].items()) or '-'}\n")
    changes = f["change_by_games"]
    out.write(
        f"\nMELO's change against the per-game change: {changes['results']} results of "
        f"crosstable events, mean absolute difference {_number(changes['mean_absolute_difference'], 4)}\n"
    )
    if len(change):
        out.write(_scatter(change_by_games, change))
    pool = f["claims"]["pool_mean"]
    out.write(f"\npool mean by month (initial {pool['initial']:.0f})\n")
    for m in pool["months"]:
        out.write(
            f"  {m['month']}  {m['players']:>9} players  mean {m['mean']:.4f}  drift {m['drift']:+.4f}\n"
        )
    pairs = f["claims"]["thousand_games"]
    out.write(
        f"\nthe 1000 games problem: pairs with at least {pairs['min_games']} games against each "
        "other outside grandmaster events, one gaining more than half of their rise from them\n"
    )
    if not pairs["pairs"]:
        out.write("  none\n")
    for p in pairs["pairs"]:
        out.write(
            f"  {p['player']} {p.get('player_name', '')} against {p['opponent']} "
            f"{p.get('opponent_name', '')}: {p['games']} games, {p['score']:g} points, gained "
            f"{p['gain_from_each_other']:.2f} of {p['total_gain']:.2f}, rating {p['rating']:.2f}\n"
        )
    return out.getvalue()


def _scatter(x: F64, y: F64, width: int = 41, height: int = 15) -> str:
    """Points (x across: per-game change; y up: MELO's change) on a character grid, with the
    diagonal where both agree."""
    top = float(max(np.abs(x).max(), np.abs(y).max(), 1e-9))
    grid = [[" "] * width for _ in range(height)]
    for i in range(min(width, height)):
        col = round(i * (width - 1) / (height - 1))
        grid[height - 1 - i][col] = "."
    for a, b in zip(x.tolist(), y.tolist(), strict=True):
        col = round((a / top + 1) / 2 * (width - 1))
        row = height - 1 - round((b / top + 1) / 2 * (height - 1))
        grid[row][col] = "o"
    lines = [f"  MELO {top:+.1f}"] + ["  |" + "".join(r) for r in grid]
    lines.append(f"  {-top:+.1f} per-game change {top:+.1f}")
    return "\n".join(lines) + "\n"


def evaluation_charts(f: dict[str, Any], change: F64, change_by_games: F64) -> dict[str, str]:
    """The charts as inline SVG texts: calibration, changes, sweep, pool."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def drawn(draw: Any) -> str:
        figure, axes = plt.subplots(figsize=(6, 3.6), dpi=100)
        try:
            draw(axes)
            axes.grid(True, alpha=0.3)
            figure.tight_layout()
            buffer = io.BytesIO()
            figure.savefig(buffer, format="svg", metadata={"Date": None})
            svg = buffer.getvalue().decode("utf-8")
            return svg[svg.index("<svg") :]
        finally:
            plt.close(figure)

    def calibration(axes: Any) -> None:
        bins = [b for b in f["calibration"] if b["games"]]
        axes.plot([0, 1], [0, 1], color="#999", linewidth=1, label="perfect")
        axes.plot([b["expected"] for b in bins], [b["actual"] for b in bins], "o-",
                  color="#1f5fa8", label="observed")  # fmt: skip
        axes.set_xlabel("expected score per game (E/N)")
        axes.set_ylabel("actual score per game (P/N)")
        axes.set_xlim(0, 1)
        axes.set_ylim(0, 1)
        axes.legend(loc="upper left", fontsize=8)

    def changes(axes: Any) -> None:
        if len(change):
            top = float(max(np.abs(change).max(), np.abs(change_by_games).max()))
            axes.plot([-top, top], [-top, top], color="#999", linewidth=1)
            axes.plot(change_by_games, change, "o", color="#1f5fa8", markersize=3, alpha=0.6)
        axes.set_xlabel("game-by-game change, k (P - sum of e)")
        axes.set_ylabel("MELO's change")

    def sweep(axes: Any) -> None:
        for tier in f["by_tier"]:
            rows = [r for r in f["k_sweep"] if r["tier"] == tier and r["score_mse"] is not None]
            if rows:
                axes.plot([r["k"] for r in rows], [r["score_mse"] for r in rows], "o-", label=tier,
                          markersize=3)  # fmt: skip
        axes.set_xlabel("k of the tier")
        axes.set_ylabel("score_mse")
        axes.legend(fontsize=8)

    def pool(axes: Any) -> None:
        months = f["claims"]["pool_mean"]["months"]
        axes.axhline(f["claims"]["pool_mean"]["initial"], color="#999", linewidth=1)
        axes.plot(range(len(months)), [m["mean"] for m in months], color="#1f5fa8")
        step = max(1, len(months) // 6)
        axes.set_xticks(range(0, len(months), step), [m["month"] for m in months][::step])
        axes.tick_params(axis="x", labelrotation=45)
        # The rating itself on the axis (1000.1), not an offset (+1e3 and 0.1).
        axes.ticklabel_format(axis="y", useOffset=False, style="plain")
        axes.set_ylabel("pool mean rating")

    return {
        "calibration": drawn(calibration),
        "changes": drawn(changes),
        "sweep": drawn(sweep),
        "pool": drawn(pool),
    }
