"""What a page load costs on the wire, as Chromium's DevTools protocol reports it: each
request, whether it came from the browser's cache, and the bytes it took (headers and
body as sent, so compressed when the server compressed it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page


@dataclass
class Fetched:
    url: str
    status: int = 0
    cached: bool = False  # served from Chromium's disk or memory cache, no request sent
    encoding: str = ""
    transferred: int = 0  # bytes received for it (0 when cached)


@dataclass
class Load:
    """The requests of one page load, by DevTools request id."""

    fetched: dict[str, Fetched] = field(default_factory=dict)

    def static(self) -> list[Fetched]:
        """The page's own files (the API's answers left out)."""
        return [f for f in self.fetched.values() if "/v1/" not in f.url]

    def over_network(self) -> list[Fetched]:
        return [f for f in self.fetched.values() if not f.cached]

    def bytes(self) -> int:
        return sum(f.transferred for f in self.fetched.values())

    def summary(self) -> str:
        files = self.static()
        sent = [f for f in files if not f.cached]
        return (
            f"{len(self.fetched)} requests ({len(files)} of the page's files), "
            f"{len(self.over_network())} over the network ({len(sent)} of the page's files), "
            f"{self.bytes()} bytes transferred ({sum(f.transferred for f in files)} for the files)"
        )


def measure(page: Page, action: Any) -> Load:
    """Run ``action()`` (a goto or a reload, waiting for the network to idle) and record
    every request it made."""
    load = Load()
    served: set[str] = set()  # ids Chromium answered from its cache (events come in any order)
    cdp = page.context.new_cdp_session(page)

    def sent(event: dict[str, Any]) -> None:
        load.fetched.setdefault(event["requestId"], Fetched(event["request"]["url"]))

    def received(event: dict[str, Any]) -> None:
        got = load.fetched.setdefault(event["requestId"], Fetched(event["response"]["url"]))
        response = event["response"]
        got.status = response["status"]
        got.cached = bool(response.get("fromDiskCache") or response.get("fromMemoryCache"))
        headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
        got.encoding = headers.get("content-encoding", "")

    def cached(event: dict[str, Any]) -> None:
        served.add(event["requestId"])

    def finished(event: dict[str, Any]) -> None:
        if event["requestId"] in load.fetched:
            load.fetched[event["requestId"]].transferred = int(event["encodedDataLength"])

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.responseReceived", received)
    cdp.on("Network.requestServedFromCache", cached)
    cdp.on("Network.loadingFinished", finished)
    cdp.send("Network.enable")
    try:
        action()
    finally:
        cdp.detach()
    for request_id in served & set(load.fetched):
        load.fetched[request_id].cached = True
    return load
