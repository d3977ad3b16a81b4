"""The reading process of a backup of SQLite: ``python sqlite_child.py DATABASE BATCH_ROWS``.

It opens the database read-only through ADBC's SQLite driver and, in one read transaction (the
driver's, begun at its first query, so every answer sees the same state of the database),
answers requests on its standard input, one JSON object a line (``{"sql": ...}``), each with an
Arrow IPC stream of the rows on its standard output, in batches of ``BATCH_ROWS``. A query that
fails is answered by a stream of one column named :data:`ERROR` holding the message. It ends at
the end of its input.

It is a process of its own because ADBC's driver carries its own copy of SQLite: two copies of
SQLite in one process do not see each other's POSIX locks on the same file.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any
from urllib.parse import quote

ERROR = "__error__"


def main(argv: list[str]) -> int:
    import adbc_driver_sqlite.dbapi as adbc
    import pyarrow as pa
    import pyarrow.ipc as ipc

    path, batch_rows = argv
    out = sys.stdout.buffer
    try:
        _answer(adbc, pa, ipc, path, batch_rows, out)
    except BrokenPipeError:  # the parent stopped reading: it has its reason
        return 1
    except Exception as error:  # the parent sees the stream end part-way and says so
        sys.stderr.write(f"the reading process failed: {' '.join(str(error).split())}\n")
        return 1
    return 0


def _answer(adbc: Any, pa: Any, ipc: Any, path: str, batch_rows: str, out: IO[bytes]) -> None:
    with adbc.connect(f"file:{quote(path)}?mode=ro") as connection:
        for line in sys.stdin:
            request = json.loads(line)
            with connection.cursor() as cursor:
                try:
                    cursor.adbc_statement.set_options(
                        **{"adbc.sqlite.query.batch_rows": batch_rows}
                    )
                    cursor.execute(request["sql"])
                    reader = cursor.fetch_record_batch()
                except Exception as error:  # told to the parent, which raises it
                    message = pa.table({ERROR: [" ".join(str(error).split())]})
                    with ipc.new_stream(out, message.schema) as writer:
                        writer.write_table(message)
                else:
                    with ipc.new_stream(out, reader.schema) as writer:
                        for batch in reader:
                            writer.write_batch(batch)
            out.flush()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
