"""Headless Chromium for the tests of pages dc-bridge writes (the HTML report, GX Data Docs): a screenshot
and the DOM after the page's scripts ran, with every network request refused, as on a machine offline."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

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
