"""Observers of running turns: the traces and metrics the live runner attaches to each turn.

They read a turn's published events; the kit they export through (the metric registry, the
span pipeline, the log format) is ``observability/``, a floor below.
"""
