"""Storage: the database schema, its migrations, and every query the jobs need.

Nothing outside this package sees a table or a row object; the jobs get polars frames, numpy
arrays and frozen dataclasses. The queries are functions of an open connection, one module per
part of the domain: ``players``, ``tournaments``, ``window`` (what a rating run rates again, and
the rating changes it writes), ``lists`` (the ranking and the published lists) and ``runs`` (job
runs); ``frames`` reads query results into frames and names the schema of each frame returned.

Callers own the transaction (``engine.begin()``): a job is one transaction, so a failure or a kill
leaves the database as it was before the job.
"""
