"""Builders and writers for everything the service publishes."""
