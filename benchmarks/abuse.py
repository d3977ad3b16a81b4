"""The web service under abuse: ``python -m benchmarks.abuse [--idle N]``.

Serves an empty database on a loopback port (uvicorn in a thread of this process, as
``ratings serve`` runs it) and times what an abusive client costs: uploads that decode to far
more than they weigh (a workbook whose sheet unpacks to 36 MB, a Parquet file of a million rows
in two kilobytes, one whose dictionary repeats a 20,000-character text 2,000 times, a CSV file of
a million rows, JSON nested 100,000 deep), ``/health`` with ``N`` idle connections open (300 by
default, past a bound of 100), a request head that never ends, and a stop with an unfinished
upload open. Each line prints the answer, its size and the time; targets: every upload answered
within a second with a body under a kilobyte, ``/health`` within a second, the stop within the
stop timeout and a second.
"""

from __future__ import annotations

import argparse
import io
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pyarrow as pa
import pyarrow.parquet as pq

from ratings.storage.database import open_engine
from service.settings import Settings, configure
from service.web import create_app, make_server


def workbook_bomb(rows: int) -> bytes:
    """A workbook whose one sheet holds ``rows`` identical rows: it packs about 300 to 1."""
    import zipfile

    sheet = (
        b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        b"<sheetData>" + b'<row><c t="inlineStr"><is><t>Player</t></is></c></row>' * rows
        + b"</sheetData></worksheet>"
    )  # fmt: skip
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return stream.getvalue()


def parquet(table: pa.Table) -> bytes:
    stream = io.BytesIO()
    pq.write_table(table, stream)
    return stream.getvalue()


UPLOADS: dict[str, tuple[str, Callable[[], bytes]]] = {
    "workbook, sheet of 36 MB": ("bomb.xlsx", lambda: workbook_bomb(700_000)),
    "parquet, a million rows": (
        "million.parquet",
        lambda: parquet(pa.table({"name": pa.array([None] * 1_000_000, pa.string())})),
    ),
    "parquet, 40 MB of text from a dictionary": (
        "long.parquet",
        lambda: parquet(pa.table({"name": pa.array(["x" * 20_000] * 2000).dictionary_encode()})),
    ),
    "csv, a million rows": ("million.csv", lambda: b"name\n" + b"x\n" * 1_000_000),
    "json, nested 100,000 deep": ("deep.json", lambda: b"[" * 100_000 + b"]" * 100_000),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=300, help="idle connections to open")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(f"sqlite:///{Path(folder) / 'ratings.sqlite'}")
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        host, port = sock.getsockname()
        options = configure(
            Settings(
                _env_file=None,
                http_host=host,
                http_port=port,
                http_max_connections=100,
                http_header_timeout=2,
                http_stop_timeout=2,
            )
        ).web
        server = make_server(create_app(engine, options), options)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        base = f"http://{host}:{port}"
        for label, (name, make) in UPLOADS.items():
            data = make()
            started = time.perf_counter()
            answer = httpx.post(
                f"{base}/seed", data={"system": "swiss"}, files={"file": (name, data)}, timeout=120
            )
            took = time.perf_counter() - started
            print(
                f"{label:<42} {len(data) / 1024:8.0f} KB  -> {answer.status_code} "
                f"{len(answer.content):6d} bytes  {took * 1000:7.0f} ms"
            )
        idle = [socket.create_connection((host, port)) for _ in range(arguments.idle)]
        times = []
        for _ in range(5):
            started = time.perf_counter()
            status = httpx.get(f"{base}/health", timeout=30).status_code
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"/health with {arguments.idle} idle connections (bound 100): {status}, "
            f"slowest of 5 {max(times):.0f} ms"
        )
        for connection in idle:
            connection.close()
        slow = socket.create_connection((host, port))
        slow.sendall(b"GET /health HTTP/1.1\r\n")
        slow.settimeout(30)
        started = time.perf_counter()
        slow.recv(1)
        print(
            f"half a request head (timeout 2 s): dropped after {time.perf_counter() - started:.1f} s"
        )
        unfinished = socket.create_connection((host, port))
        unfinished.sendall(
            b"POST /seed HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n\r\n--b\r\n"
        )
        time.sleep(0.2)
        started = time.perf_counter()
        server.should_exit = True
        thread.join(60)
        print(
            f"stop with an unfinished upload (stop timeout 2 s): "
            f"{time.perf_counter() - started:.1f} s"
        )
        unfinished.close()
        engine.dispose()


if __name__ == "__main__":
    main()
