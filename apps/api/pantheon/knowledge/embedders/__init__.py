"""Embedders: text -> unit vectors. ``base`` is the contract; ``config`` builds one by name."""
