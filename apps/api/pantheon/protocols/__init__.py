"""Protocol adapters: rooms and agents served to hosts that speak other protocols."""
