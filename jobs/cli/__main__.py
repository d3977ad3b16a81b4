"""``python -m jobs.cli``: the ``ratings`` command."""

from jobs.cli import main

main()
