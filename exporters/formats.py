"""The formats each document is written in, by name: what the command line offers as choices,
kept apart from the writers so that listing them loads no writer (nor polars)."""

RANKING_FORMATS = ("csv", "json", "xlsx", "html", "text")
HISTORY_FORMATS = ("csv", "json", "xlsx", "html", "svg", "png", "text")
