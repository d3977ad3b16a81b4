"""The numbering of distinct values (a file's players, its names) as the slices of a file are
read: each value gets the number of its first appearance, looked up by a hash of its row."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import numpy as np
import polars as pl
from numpy.typing import NDArray


class Distinct:
    """The distinct values of ``columns`` in the slices of a file, numbered in the order they
    first appear, each stored once with what the caller keeps of it (``keep``, which holds
    ``columns``).

    A slice's values are looked up by a 64-bit hash among the sorted hashes of those seen
    before: joining each slice to everything seen so far built a hash table of all of the
    file's players in every slice, a cost that grew with the file. Equal hashes are not
    trusted: every row is compared with the values stored under its number, and should two
    different values ever share a hash, the file goes on with the joins from that slice."""

    def __init__(
        self,
        columns: Sequence[str],
        keep: Callable[[pl.DataFrame], pl.DataFrame],
        hash_rows: Callable[[pl.DataFrame], NDArray[np.uint64]] | None = None,
    ):
        self.columns = list(columns)
        self.keep = keep
        self.hash_rows = hash_rows or row_hashes
        """The hash of each row of values (:func:`row_hashes` unless told)."""
        self.merged: pl.DataFrame | None = None
        """What is kept of the first values, in one piece (a gather from many is slow)."""
        self.tail: list[pl.DataFrame] = []
        """What is kept of the values after them, a piece per slice until they are merged."""
        self.joined: pl.DataFrame | None = None
        """The tail in one piece, once a lookup needed it."""
        self.count = 0
        self.hashes = np.empty(0, dtype=np.uint64)
        self.numbers = np.empty(0, dtype=np.uint32)
        self.exact = False

    def number(self, rows: pl.DataFrame) -> NDArray[np.uint32]:
        """The number of each of ``rows`` (which hold ``columns``), new values added."""
        values = rows.select(self.columns)
        if not self.exact:
            found = self._by_hash(rows, values)
            if found is not None:
                return found
            self.exact = True
        return self._by_join(rows, values)

    def stored(self, numbers: NDArray[np.uint32]) -> pl.DataFrame:
        """What is kept of the values of ``numbers``, in their order."""
        pieces = [self.merged] if self.merged is not None else []
        if self.tail:
            if self.joined is None:
                self.joined = pl.concat(self.tail).rechunk()
            pieces.append(self.joined)
        if len(pieces) == 1:
            return pieces[0].gather(pl.Series(numbers, dtype=pl.UInt32))
        merged = pieces[0].height
        early = numbers < merged
        parts = pl.concat(
            [
                pieces[0].gather(pl.Series(numbers[early], dtype=pl.UInt32)),
                pieces[1].gather(pl.Series(numbers[~early] - merged, dtype=pl.UInt32)),
            ]
        )
        where = np.concatenate([np.flatnonzero(early), np.flatnonzero(~early)])
        back = np.empty_like(where)
        back[where] = np.arange(where.size)
        return parts.gather(pl.Series(back, dtype=pl.UInt32))

    def frame(self) -> pl.DataFrame | None:
        """What is kept of every value, in the order of their numbers."""
        if self.tail:
            pieces = [self.merged, *self.tail] if self.merged is not None else self.tail
            self.merged = pl.concat(pieces).rechunk()
            self.tail = []
            self.joined = None
        return self.merged

    def _by_hash(self, rows: pl.DataFrame, values: pl.DataFrame) -> NDArray[np.uint32] | None:
        hashes = self.hash_rows(values)
        distinct, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        # Every row equal to the first row of its hash in the slice (the others than the first).
        firsts = first[inverse]
        again = np.flatnonzero(firsts != np.arange(firsts.size))
        if again.size and not _same(
            values.gather(pl.Series(again, dtype=pl.UInt32)),
            values.gather(pl.Series(firsts[again], dtype=pl.UInt32)),
        ):
            return None
        place = np.searchsorted(self.hashes, distinct)
        seen = place < self.hashes.size
        seen[seen] = self.hashes[place[seen]] == distinct[seen]
        numbers = np.empty(distinct.size, dtype=np.uint32)
        numbers[seen] = self.numbers[place[seen]]
        # ... and to the values stored under the number of its hash.
        if seen.any() and not _same(
            values.gather(pl.Series(first[seen], dtype=pl.UInt32)),
            self.stored(numbers[seen]).select(self.columns),
        ):
            return None
        # New values numbered in the order they first appear.
        new = np.flatnonzero(~seen)
        if new.size:
            appearing = new[np.argsort(first[new], kind="stable")]
            numbers[appearing] = np.arange(self.count, self.count + new.size, dtype=np.uint32)
            self._add(rows.gather(pl.Series(first[appearing], dtype=pl.UInt32)))
            # In the order of the hashes (``distinct`` is sorted), each before the first larger.
            self.hashes = np.insert(self.hashes, place[new], distinct[new])
            self.numbers = np.insert(self.numbers, place[new], numbers[new])
        return numbers[inverse]

    def _by_join(self, rows: pl.DataFrame, values: pl.DataFrame) -> NDArray[np.uint32]:
        first = rows.unique(self.columns, keep="first", maintain_order=True)
        known = self.frame()
        if known is not None:
            first = first.join(
                known.select(self.columns), on=self.columns, how="anti", nulls_equal=True
            )
        self._add(first)
        everyone = self.frame()
        assert everyone is not None
        numbered = values.join(
            everyone.select(self.columns).with_row_index("_number"),
            on=self.columns, how="left", nulls_equal=True, maintain_order="left",
        )  # fmt: skip
        return numbered["_number"].to_numpy().astype(np.uint32)

    def _add(self, fresh: pl.DataFrame) -> None:
        if fresh.height == 0:
            return
        self.tail.append(own(self.keep(fresh)))
        self.joined = None
        self.count += fresh.height
        # Merged when the pieces after the first ones hold a quarter as many: each value is
        # copied a few times in all, and a lookup gathers from two pieces at most.
        merged = self.merged.height if self.merged is not None else 0
        if sum(piece.height for piece in self.tail) * 4 > merged:
            self.frame()


def row_hashes(values: pl.DataFrame) -> NDArray[np.uint64]:
    """A 64-bit hash of each row of ``values``."""
    return values.hash_rows(seed=20261124).to_numpy()


def _same(left: pl.DataFrame, right: pl.DataFrame) -> bool:
    """Whether two frames of the same columns hold the same values, nulls equal to nulls."""
    return all(left[c].eq_missing(right[c]).all() for c in left.columns)


def own(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with text of its own: polars' text columns point into the buffers of the frame
    they were taken from, so a few players kept from each slice would keep every slice's text
    alive (about a hundred bytes a row of the whole file). Written out and read back in polars'
    own IPC format, without pyarrow (whose loading cost a month's import 0.08 s)."""
    buffer = io.BytesIO()
    frame.write_ipc(buffer, compression="uncompressed")
    buffer.seek(0)
    return pl.read_ipc(buffer)
