"""Headless Chromium for the tests of pages dc-bridge writes (the HTML report, GX Data Docs, the history
site): a screenshot and the DOM after the page's scripts ran, with every network request refused, as on a
machine offline (`open_offline`, one browser per page); or one browser that opens page after page and
counts each page's own requests over the DevTools protocol (`Chromium`)."""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import pytest

# Debian's `chromium` package
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def need_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (Debian: apt-get install chromium): this test needs a headless browser")


def open_offline(page: Path, screenshot: Path, profile: Path, size: tuple[int, int] = (1366, 900)) -> subprocess.CompletedProcess:
    """Load `page` (a file) with no network: every host resolves to nothing and every request goes to a
    proxy that is not there. Writes `screenshot` (PNG); stdout is the DOM once the page's scripts ran
    (within five seconds of virtual time)."""
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--no-first-run", f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
                           "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
                           "--virtual-time-budget=5000", f"--screenshot={screenshot}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)


# what a page may load without the network: itself and files beside it, inline data, nothing at all
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")


@dataclass(frozen=True)
class Opened:
    """A page once loaded: its DOM, and every URL it asked for that is not on this machine (`LOCAL_SCHEMES`),
    as Chromium's DevTools protocol reports them (Network.requestWillBeSent of the page's own session:
    sent, blocked or failed alike; Chromium's own background calls are not the page's)."""
    dom: str
    requests: list[str]


class Chromium:
    """One headless Chromium driven over its DevTools protocol (`--remote-debugging-pipe`: JSON messages
    ended by NUL on file descriptors 3 and 4, nothing to install), that opens page after page in one tab
    and counts each page's own network requests. `flags` are added to the launch (a proxy, resolver rules)."""

    def __init__(self, profile: Path, flags: tuple[str, ...] = (), size: tuple[int, int] = (1366, 900)):
        need_chromium()
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()
        profile.mkdir(parents=True, exist_ok=True)
        self._log = profile / "chromium.log"
        # bash (dash takes no descriptor past 9) puts the two pipes where Chromium reads and writes its protocol,
        # then becomes Chromium
        with open(self._log, "wb") as log:
            self._process = subprocess.Popen(
                ["bash", "-c", f'exec "$@" 3<&{to_browser} 4>&{from_browser}', "bash", CHROMIUM, "--headless", "--no-sandbox",
                 "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
                 "--remote-debugging-pipe", *flags, "about:blank"],
                pass_fds=(to_browser, from_browser), stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        os.close(to_browser)
        os.close(from_browser)
        self._messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._next_id = 0
        self._events: list[dict] = []
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Network"):
            self._call(f"{domain}.enable", session=True)

    def _read(self) -> None:
        buffer = b""
        while chunk := os.read(self._from_browser, 1 << 16):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for message in messages:
                self._messages.put(json.loads(message))
        self._messages.put(None)  # the browser closed its end

    def _next(self, deadline: float) -> dict | None:
        try:
            message = self._messages.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if message is None:
            raise AssertionError(f"chromium stopped: {self._log.read_text(errors='replace')[-2000:]}")
        return message

    def _call(self, method: str, session: bool = False, timeout: float = 60.0, **params) -> dict:
        """Send a command and wait for its answer; the events that arrive meanwhile are kept."""
        self._next_id += 1
        command = {"id": self._next_id, "method": method, "params": params, **({"sessionId": self._session} if session else {})}
        os.write(self._to_browser, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while (message := self._next(deadline)) is not None:
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return message["result"]
            if "method" in message:
                self._events.append(message)
        raise AssertionError(f"{method}: no answer from chromium in {timeout} s")

    def _wait(self, event: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(e["method"] == event for e in self._events):
            message = self._next(deadline)
            if message is None:
                raise AssertionError(f"no {event} in {timeout} s")
            if "method" in message:
                self._events.append(message)

    def _drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (message := self._next(deadline)) is not None:
            if "method" in message:
                self._events.append(message)

    def open(self, page: Path, screenshot: Path | None = None, settle: float = 0.5) -> Opened:
        """Load `page` (a file), wait for its load event and `settle` seconds more (a request a page makes
        late is counted too); its DOM and its own requests, and its screenshot (PNG) when asked."""
        self._events.clear()
        self._call("Page.navigate", session=True, url=page.as_uri())
        self._wait("Page.loadEventFired", timeout=60)
        self._drain(settle)
        requests = [e["params"]["request"]["url"] for e in self._events if e["method"] == "Network.requestWillBeSent"
                    and e.get("sessionId") == self._session and not e["params"]["request"]["url"].startswith(LOCAL_SCHEMES)]
        dom = self.evaluate("document.documentElement.outerHTML")
        if screenshot is not None:
            shot = self._call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=True)
            screenshot.write_bytes(base64.b64decode(shot["data"]))
        return Opened(dom, requests)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the open page (JSON-like values come back as they are):
        what the page means to its reader (computed styles, fonts in use), which no screenshot's pixels say
        the same way on every machine."""
        return self._call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)["result"].get("value")

    def close(self) -> None:
        try:
            self._call("Browser.close", timeout=10)
        except AssertionError:
            pass  # it closed before it answered
        finally:
            os.close(self._to_browser)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            os.close(self._from_browser)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
