"""``python -m service.cli``: the ``ratings`` command."""

from service.cli import main

main()
