"""One call made by a thread of its own while the caller goes on (the file's SHA-256 while it is
read, the database opened while the files are read, the copies of events compared while the
import writes): its result, or its error, is the future's, taken when the caller needs it."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")


def aside(name: str, function: Callable[..., _T], *args: Any) -> concurrent.futures.Future[_T]:
    """``function(*args)`` called by a thread named after ``name``, which ends with the call."""
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=name)
    try:
        return pool.submit(function, *args)
    finally:
        pool.shutdown(wait=False)
