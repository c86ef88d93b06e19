"""Pantheon benchmarks: a mock OpenAI-compatible upstream and one module per benchmark.

Run with ``make bench`` (full sizes, writes ``docs/benchmarks.md``) or ``make bench-quick``
(tiny sizes, a few seconds). Every benchmark is measured against a baseline taken in the
same run, on loopback only, with every load loop bounded in count and in time.
"""
