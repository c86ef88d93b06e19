"""Serves the static web client (``apps/web``) at ``/``.

Mounted after the API routers: Starlette matches routes in order, so ``/v1``, ``/docs``,
``/health`` and ``/ready`` keep answering and only the remaining paths reach the files.
"""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

log = logging.getLogger("pantheon.web")

WEB_DIR = Path(__file__).resolve().parents[2] / "web"


def mount_web(app: FastAPI, directory: Path = WEB_DIR) -> None:
    """Serve ``directory`` at ``/`` (``index.html`` for ``/``); call after the routers."""
    if not (directory / "index.html").is_file():
        # An installed wheel carries only the package; the API still works without the page.
        log.warning("web client not found at %s; serving the API only", directory)
        return
    app.mount("/", StaticFiles(directory=directory, html=True), name="web")
