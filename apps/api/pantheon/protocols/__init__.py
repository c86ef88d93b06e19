"""Protocol adapters: rooms served to hosts that speak other protocols (SPEC.md)."""
