"""Delivery: settings, logging, the scheduler, ``ratings serve``, the command line and the web
service. Everything here calls the jobs; nothing in ``ratings``, ``importers``, ``exporters`` or
``jobs`` imports it."""
