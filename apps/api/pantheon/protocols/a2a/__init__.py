"""A2A 1.0 server: each room is an agent at ``/a2a/rooms/{room_id}`` (docs/a2a.md).

A task is a turn and a context is a session: the SDK's request routes and error shapes,
with a request handler over ``TurnService`` instead of the SDK's in-memory task registry,
so tasks are read, followed and cancelled from Pantheon's record and live backend on any
replica."""
