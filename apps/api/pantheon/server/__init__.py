"""The top floor: the app factory and its lifespan, the mounting of every router and door,
serving (uvicorn, workers, turn-aware shutdown), the web client's files, the command line
and the bundled local model. Nothing below imports it (the layer contract in pyproject.toml).
"""
