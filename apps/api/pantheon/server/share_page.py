"""``GET /share/<token>``: a share link's read-only page (docs/adr/0042), for anyone.

The page (``apps/web/share.html`` and ``js/share/``) reads the snapshot from
``GET /v1/shared/<token>`` and renders it with the web client's Markdown renderer. This
route answers the page only for a live link, and a plain "link not found" page (404)
otherwise, so a dead link says so without running any script.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from starlette.responses import HTMLResponse, Response

from pantheon.deps import UoWDep
from pantheon.errors import NotFound
from pantheon.server.web_assets import SHARE_PAGE, Asset
from pantheon.sessions.share_routes import PUBLIC_HEADERS, TokenPath
from pantheon.sessions.shared import live_share

Assets = Callable[[], Awaitable[dict[str, Asset]]]
Respond = Callable[[Asset, Request], Response]

NOT_FOUND_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Link not found · Pantheon</title>
</head>
<body>
  <main>
    <h1>Link not found</h1>
    <p>This share link does not exist or no longer works: its owner may have revoked or
    replaced it, or deleted the conversation.</p>
  </main>
</body>
</html>
"""
# The 404 page runs nothing and loads nothing.
_NOT_FOUND_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'"


def add_share_page(app: FastAPI, assets: Assets, respond: Respond) -> None:
    """Route ``/share/{token}`` to the share page, served as the web mount serves files."""

    async def share_page(token: TokenPath, uow: UoWDep, request: Request) -> Response:
        try:
            await live_share(uow, token)
        except NotFound:
            headers = {**PUBLIC_HEADERS, "Content-Security-Policy": _NOT_FOUND_CSP}
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404, headers=headers)
        response = respond((await assets())[SHARE_PAGE], request)
        response.headers.update(PUBLIC_HEADERS)
        return response

    app.add_api_route(
        "/share/{token}", share_page, methods=["GET"], include_in_schema=False, name="share_page"
    )
