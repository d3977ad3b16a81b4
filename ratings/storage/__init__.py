"""Storage: the database schema, its migrations, and every query the jobs need.

Nothing outside this package sees a table or a row object; the jobs get polars frames, numpy
arrays and frozen dataclasses.
"""
