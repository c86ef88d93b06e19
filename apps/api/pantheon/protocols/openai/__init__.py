"""The OpenAI-compatible facade: a room or an agent as a "model" any OpenAI client can use.

Routes under ``/openai/v1`` (``routes.py``) translate OpenAI's chat completions into
Pantheon turns run by the usual ``TurnService``; see docs/openai.md.
"""
