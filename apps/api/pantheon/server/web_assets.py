"""The web page's files, read once (docs/adr/0035): each with a content hash and, when it
is text, its gzip bytes; the pages rewritten to load every file by a versioned URL.

No build step: the files in ``apps/web`` are what the browser runs. At startup (in a
thread, off the event loop) every file is hashed and compressed, and each page
(``index.html``, and ``share.html``, a share link's read-only view) gets

* ``/`` before and ``?v=<hash>`` after each ``src``/``href`` naming one of the page's
  files: root-absolute, so the same page also works when served at a deeper path
  (``/invite/<token>``, ``server/web.py`` ``PAGE_PATHS``);
* an import map (``<script type="importmap">``) from every script's URL (but those the
  page loads as classic scripts) to its versioned URL, so ``import ... from
  "../core/dom.js"`` loads ``/js/core/dom.js?v=<hash>`` (and ``import()`` of a vendored
  script, its versioned URL too), and its
  SHA-256 in the Content-Security-Policy (an import map is an inline script);
* a ``<link rel="modulepreload">`` for every module the entry module reaches by its static
  imports, so the browser fetches them all at once instead of one level at a time.

A versioned URL never changes content, so it may be cached for a year; ``index.html``
and unversioned URLs are revalidated (ETag) on every load.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import mimetypes
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

INDEX = "index.html"
SHARE_PAGE = "share.html"  # served at /share/<token> (ADR 0042): its URLs start at "/"
# The HTML pages rewritten as below, each with the prefix its import map's keys need.
PAGES = (INDEX, SHARE_PAGE)
# Text compresses well; fonts and images already are compressed.
_COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
_ASSET_REF = re.compile(r'\b(src|href)="([^"#:?]+)"')
_MODULE_ENTRY = re.compile(r'<script type="module" src="([^"#:?]+)"')
_CLASSIC_SCRIPT = re.compile(r'<script(?![^>]*type="module")[^>]*\bsrc="([^"#:?]+)"')
# Static imports and re-exports of a module, relative ones only (the page has no others).
_IMPORT = re.compile(r'\b(?:from|import)\s*"(\.{1,2}/[^"]+)"')
_SCRIPT_SRC = re.compile(r"(script-src 'self')")


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as served: its bytes, its gzip bytes (None when not worth it), its media
    type and ``version``, the first 16 hex digits of the SHA-256 of ``body``."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    version: str


def make_asset(path: str, body: bytes) -> Asset:
    """``body`` served as ``path``: hashed, and compressed when it is text and shrinks."""
    media_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
    if path.endswith((".js", ".mjs")):
        media_type = "text/javascript"  # the HTML standard's name, on every Python version
    gzipped = None
    if media_type.startswith(_COMPRESSIBLE):
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        gzipped = packed if len(packed) < len(body) else None
        media_type += "; charset=utf-8" if media_type.startswith("text/") else ""
    return Asset(body, gzipped, media_type, hashlib.sha256(body).hexdigest()[:16])


def read_assets(directory: Path, entries: Iterable[str]) -> dict[str, Asset]:
    """Every file under ``directory``'s ``entries`` by its path (``js/core/dom.js``), with
    ``index.html`` rewritten to use versioned URLs. Blocking: run it in a thread."""
    sources: dict[str, bytes] = {}
    for entry in sorted(entries):
        top = directory / entry
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for file in files:
            sources[file.relative_to(directory).as_posix()] = file.read_bytes()
    assets = {path: make_asset(path, body) for path, body in sources.items()}
    for name in PAGES:
        if name in sources:
            page = versioned_index(sources[name].decode(), assets, sources)
            assets[name] = make_asset(name, page.encode())
    return assets


def versioned_index(page: str, assets: dict[str, Asset], sources: dict[str, bytes]) -> str:
    """``page`` loading each of the page's files by its versioned, root-absolute URL (see
    the module), so a page served below ``/`` (``/invite/...``, ``/share/...``) loads
    the same files."""

    def versioned(match: re.Match[str]) -> str:
        attribute, path = match.groups()
        name = path.removeprefix("/")
        asset = assets.get(name)
        return match[0] if asset is None else f'{attribute}="/{name}?v={asset.version}"'

    classic = {p.removeprefix("/") for p in _CLASSIC_SCRIPT.findall(page)}
    # Every script but the classic ones: js/ and what a module imports when it needs it.
    modules = sorted(p for p in assets if p.endswith(".js"))
    imports = {f"/{p}": f"/{p}?v={assets[p].version}" for p in modules if p not in classic}
    import_map = json.dumps({"imports": imports}, indent=None, separators=(",", ":"))
    digest = base64.b64encode(hashlib.sha256(import_map.encode()).digest()).decode()
    entries = [p.removeprefix("/") for p in _MODULE_ENTRY.findall(page)]
    preload = [p for p in _reachable(entries, sources) if p in assets and p not in entries]
    head = [f'<script type="importmap">{import_map}</script>']
    head += [f'<link rel="modulepreload" href="{html.escape(imports[f"/{p}"])}">' for p in preload]
    rewritten = _ASSET_REF.sub(versioned, page)
    at = rewritten.find('<script type="module"')
    if at < 0:
        return rewritten
    rewritten = rewritten[:at] + "\n  ".join(head) + "\n  " + rewritten[at:]
    return _SCRIPT_SRC.sub(rf"\1 'sha256-{digest}'", rewritten, count=1)


def _reachable(entries: list[str], sources: dict[str, bytes]) -> list[str]:
    """The modules ``entries`` import, directly or not, in the order first met."""
    seen: dict[str, None] = {}
    pending = list(entries)
    while pending:
        path = pending.pop(0)
        if path in seen or path not in sources:
            continue
        seen[path] = None
        for ref in _IMPORT.findall(sources[path].decode()):
            target = PurePosixPath(path).parent / ref
            pending.append(_normalise(target))
    return list(seen)


def _normalise(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)
