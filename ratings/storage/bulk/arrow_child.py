"""The reading process of :mod:`ratings.storage.bulk.columnar` on SQLite: ``python -m
ratings.storage.bulk.arrow_child DATABASE`` (started by its file's path).

It opens the database read-only through ADBC's SQLite driver and, in one read transaction,
answers requests on its standard input, one JSON object a line (``{"sql": ..., "out": ...}``):
it runs the query, writes the rows as an Arrow IPC file at ``out`` and answers ``ok`` (or
``error`` and the message) on a line of its standard output. It ends at the end of its input.

It is a process of its own because ADBC's driver carries its own copy of SQLite: two copies of
SQLite in one process do not see each other's POSIX locks, and closing either one's file would
drop the locks the other holds on the database (SQLite's "how to corrupt" notes, 2.2). Only the
standard library is imported before the request loop, to keep the start short.
"""

from __future__ import annotations

import json
import sys
from urllib.parse import quote


def main(argv: list[str]) -> int:
    import adbc_driver_sqlite.dbapi as adbc
    import pyarrow.ipc as ipc

    (path,) = argv
    with adbc.connect(f"file:{quote(path)}?mode=ro") as connection:
        for line in sys.stdin:
            request = json.loads(line)
            try:
                with connection.cursor() as cursor:
                    cursor.execute(request["sql"])
                    table = cursor.fetch_arrow_table()
                with ipc.new_file(request["out"], table.schema) as out:
                    out.write_table(table)
            except Exception as error:  # the parent reads through the job's connection instead
                _answer("error " + " ".join(str(error).split()))
            else:
                _answer("ok")
    return 0


def _answer(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
