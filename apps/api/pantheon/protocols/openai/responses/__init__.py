"""The Responses API facade (``/openai/v1/responses``): a room or agent as ``model``."""
