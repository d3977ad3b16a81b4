"""The portable archive of a whole database (:mod:`.form`: a zip file of Arrow IPC streams and a
manifest with counts and checksums), the reading of a database's tables into one
(:mod:`.reading`) and the loading of one into an empty database (:mod:`.loading`).

Nothing in it depends on the backend: a SQLite database's archive restores into PostgreSQL and
the other way round. Tables are read, written and checked in batches, never whole.
"""

from ratings.storage.archive.form import (
    BATCH_ROWS,
    Archive,
    Manifest,
    Progress,
    TableBatches,
    TableEntry,
    arrow_schema,
    arrow_type,
    rows_digest,
    write_archive,
)
from ratings.storage.archive.loading import (
    check_read_back,
    content_digest,
    drop_everything,
    foreign_keys_restored,
    foreign_keys_set_aside,
    holds_data,
    load_staged,
    load_table,
    sequences_past_ids,
    sqlite_staged,
)
from ratings.storage.archive.reading import (
    count_rows,
    database_tables,
    fast_reader,
    postgres_columns,
    read_batches,
    sqlite_columns,
)

__all__ = [
    "BATCH_ROWS",
    "Archive",
    "Manifest",
    "Progress",
    "TableBatches",
    "TableEntry",
    "arrow_schema",
    "arrow_type",
    "check_read_back",
    "content_digest",
    "count_rows",
    "database_tables",
    "drop_everything",
    "fast_reader",
    "foreign_keys_restored",
    "foreign_keys_set_aside",
    "holds_data",
    "load_staged",
    "load_table",
    "postgres_columns",
    "read_batches",
    "rows_digest",
    "sequences_past_ids",
    "sqlite_columns",
    "sqlite_staged",
    "write_archive",
]
