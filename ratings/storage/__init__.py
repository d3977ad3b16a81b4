"""Storage: the database schema, its migrations, and every query the jobs need.

Nothing outside this package sees a table or a row object; the jobs get polars frames, numpy
arrays and frozen dataclasses. The queries are functions of an open connection, one module per
part of the domain: ``players``, ``tournaments``, ``imports`` (what an import writes), ``window``
(what a rating run rates again), ``changes`` (the rating changes and stamps it writes), ``lists``
(the ranking and the published lists), ``list_files`` (a list as its files read it) and ``runs``
(job runs); ``frames`` reads query results into frames and names the schema of each frame
returned. Below them, for their use only: ``schema`` (the tables) and ``bulk`` (large reads and
writes through each database's fastest path).

Callers own the transaction (``engine.begin()``): a job is one transaction, so a failure or a kill
leaves the database as it was before the job.
"""
