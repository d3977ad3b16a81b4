import io
from datetime import date, datetime

import openpyxl
import polars as pl

from exporters.xlsx import MAX_WIDTH, write_xlsx


def _sheet(frame: pl.DataFrame) -> openpyxl.worksheet.worksheet.Worksheet:
    buffer = io.BytesIO()
    write_xlsx(frame, buffer, sheet="ranking")
    book = openpyxl.load_workbook(io.BytesIO(buffer.getvalue()))
    return book["ranking"]


def test_cells_keep_their_types_and_the_sheet_its_layout() -> None:
    long_name = "Maximilian " * 10
    frame = pl.DataFrame(
        {
            "rank": [1, 2],
            "name": ["Ann", long_name],
            "rating": [1012.5, 998.25],
            "last_played": [date(2025, 3, 1), None],
            "active": [True, False],
        }
    )
    sheet = _sheet(frame)
    assert [c.value for c in sheet[1]] == frame.columns
    assert all(c.font.b for c in sheet[1])
    assert sheet.freeze_panes == "A2"
    assert sheet.auto_filter.ref == "A1:E3"
    rows = [[c.value for c in row] for row in sheet.iter_rows(min_row=2)]
    assert rows == [
        [1, "Ann", 1012.5, datetime(2025, 3, 1), True],
        [2, long_name, 998.25, None, False],
    ]
    assert sheet["D2"].is_date
    assert sheet["D2"].number_format == "yyyy-mm-dd"
    assert sheet.column_dimensions["B"].width >= MAX_WIDTH
    assert sheet.column_dimensions["A"].width >= 10


def test_an_empty_frame_gives_the_header_row_only() -> None:
    sheet = _sheet(pl.DataFrame(schema={"rank": pl.Int64, "name": pl.String}))
    assert [[c.value for c in row] for row in sheet.iter_rows()] == [["rank", "name"]]
