"""Benchmarks and the synthetic federation histories they run on."""
