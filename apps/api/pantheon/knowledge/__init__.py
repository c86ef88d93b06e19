"""Knowledge: documents of rooms and agents, parsed, chunked, embedded and searched.

Routes (``routes``) -> services (``service``, ``search``) -> repositories (``repository``);
the background ``ingest`` worker turns an uploaded file into chunks off the event loop.
"""
