"""The storage's bulk machinery, below its domain modules: ``writes`` (inserts and updates of
many rows through each database's fastest path), ``indexes`` (indexes and keys dropped around a
large write and built again, the planner's statistics after it), ``rows_file`` (SQLite's large
write through a file ADBC fills), ``columnar`` (a full re-rating's reads as Arrow columns through
a second connection; on SQLite in the reading process ``arrow_child``), ``whole_table`` (a table
written whole) and ``list_columns`` (a published list read as Arrow columns for its files).

Only the storage's domain modules use it; the names of ``writes`` and ``indexes`` are importable
from here.
"""

from ratings.storage.bulk.indexes import (
    ANALYZE_FROM,
    INDEX_BUILD_MEMORY,
    REBUILD_INDEXES_FROM,
    SQLITE_ANALYSIS_ROWS,
    analyze,
    analyze_if_grown,
    indexes_rebuilt,
    keys_checked_once,
    planned_rows,
    rebuilding,
    writes_most,
)
from ratings.storage.bulk.writes import (
    BATCH,
    COPY_CHUNK,
    copy_writer,
    insert_frame,
    insert_rows,
    reserve_ids,
    update_by_id,
    update_from_frame,
)

__all__ = [
    "ANALYZE_FROM",
    "BATCH",
    "COPY_CHUNK",
    "INDEX_BUILD_MEMORY",
    "REBUILD_INDEXES_FROM",
    "SQLITE_ANALYSIS_ROWS",
    "analyze",
    "analyze_if_grown",
    "copy_writer",
    "indexes_rebuilt",
    "insert_frame",
    "insert_rows",
    "keys_checked_once",
    "planned_rows",
    "rebuilding",
    "reserve_ids",
    "update_by_id",
    "update_from_frame",
    "writes_most",
]
