"""The site's country list offers only countries: a code that names none (``???``, ``C.C``)
is stored as unknown by the import, and a list published before that never offers it."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from jobs.importing import import_files
from jobs.options import ListOptions
from jobs.publishing import publish_list
from jobs.rating import run_ratings
from service.web import create_app
from tests.service.web.support import NOW, PARAMS, add_list, generated_entries, settings

RESULTS = (
    "tournament,end_date,name,country,wins,draws,losses,buchholz\n"
    "Herbstopen,2024-10-05,Anna Schmidt,GER,2,0,0,2\n"
    "Herbstopen,2024-10-05,Bob Li,???,1,0,1,4\n"
    "Herbstopen,2024-10-05,Cy Ode,C.C,0,0,2,4\n"
    "Herbstopen,2024-10-05,Dan Berg,ST.,1,0,1,4\n"
)


def countries(client: TestClient, period: str) -> list[str]:
    page = client.get(f"/lists/{period}", params={"all": "true"}).text
    chosen = page.split('<option value="">All countries</option>', 1)[1].split("</select>")[0]
    return re.findall(r"<option(?: selected)?>([^<]*)</option>", chosen)


def test_codes_that_name_no_country_are_never_listed(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "herbst.csv"
    path.write_text(RESULTS, encoding="utf-8")
    report = import_files(engine, [path], imported_by="t", now=NOW)
    assert [(w.line, w.value) for w in report.warnings] == [(3, "???"), (4, "C.C"), (5, "ST.")]
    run_ratings(engine, PARAMS, now=NOW)
    publish_list(engine, "2024-11", ListOptions(), by="officer", now=NOW)
    # A list published before countries were checked holds them as they were written.
    old = generated_entries(16).with_columns(pl.Series("country", ["???", "C.C", "AUT", "ST."] * 4))
    add_list(engine, old, "2021-01")
    client = TestClient(create_app(engine, settings()))
    assert countries(client, "2024-11") == ["DEU"]
    assert countries(client, "2021-01") == ["AUT"]
