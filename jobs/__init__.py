"""Batch jobs, the scheduler and the command line."""
