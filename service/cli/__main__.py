"""``python -m service.cli``: the ``ratings`` command."""

from service.cli import entry

entry()
