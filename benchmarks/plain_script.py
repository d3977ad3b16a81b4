"""What an officer without the service would run to rate a federation's history: a plain Python
script that reads the results CSV with the standard library, orders the tournaments, rates them
one after another with the formula written out row at a time (``ratings.melo_reference``, the
plain script the kernel is checked against) and writes every player's exact rating.

``python -m benchmarks.plain_script RESULTS.csv RATINGS.csv``

It is the yardstick of ``benchmarks.medium``: the service's import, monthly job and full
re-rating are timed against it, as commands run the same way, and its ratings must equal the
service's to the 10th decimal. It takes nothing of the service but the formula's plain reference
and the seed's k rules, and it checks nothing: a fair script that trusts its file.
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

from ratings.melo_reference import Entry, Event, rate_events
from ratings.parameters import BUCHHOLZ_SCALE, MeloParams, format_exact


def read_events(path: Path, params: MeloParams) -> list[Event]:
    """The file's tournaments in rating order (end date, start date, key), each with its k."""
    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    with path.open(newline="", encoding="utf-8") as stream:
        for row in csv.DictReader(stream):
            rows[row["tournament_id"]].append(row)
    order = sorted(
        rows, key=lambda key: (rows[key][0]["end_date"], rows[key][0]["start_date"], key)
    )
    events = []
    for key in order:
        results = rows[key]
        entries = []
        grandmaster = False
        for row in results:
            wins, draws, losses = int(row["wins"]), int(row["draws"]), int(row["losses"])
            buchholz = round(float(row["buchholz"]) * BUCHHOLZ_SCALE)
            entries.append(Entry(row["player_id"], wins, draws, losses, buchholz))
            grandmaster = grandmaster or (row["title"] == "GM" and wins + draws + losses > 0)
        events.append(Event(params.k_for(results[0]["tier"], grandmaster), tuple(entries)))
    return events


def main(argv: list[str] | None = None) -> int:
    source, target = (Path(a) for a in (argv if argv is not None else sys.argv[1:]))
    params = MeloParams()
    ratings = rate_events(
        read_events(source, params), initial=params.initial_rating, scale=params.scale
    )
    with target.open("w", newline="", encoding="utf-8") as stream:
        out = csv.writer(stream)
        out.writerow(["player_id", "rating"])
        out.writerows((player, format_exact(units)) for player, units in sorted(ratings.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
