"""Live turns shared between replicas through Redis (ADR 0010, docs/operations.md)."""
