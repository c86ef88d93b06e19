"""What an operator sees of a running service: Prometheus metrics and structured logs
(docs/observability.md). Nothing in ``engine/`` imports this package: turn metrics are
read from the turn's published events in ``live/``."""
