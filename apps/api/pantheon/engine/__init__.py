"""The pure turn engine: plain data, a gateway and a tool runner in, events out."""
