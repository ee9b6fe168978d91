"""Every call to another machine has a total deadline, not only a timeout per read (issue 48, class 7; dc_bridge/deadline.py).

A real loopback server written here answers each request with an HTTP status line and headers one byte per
second, for ever: no read ever waits long enough to trip a client's own timeout. A Pushgateway push, OpenLineage's
HTTP transport and a REST Iceberg catalog pointed at it each give up within their deadline (a couple of seconds
here), say so, and leave the run going; the server saw each of them connect. No Spark."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from dc_bridge.deadline import DeadlineExceeded, within
from dc_bridge.report.prometheus import Targets, publish
from dc_bridge.verdict import Verdict

SECONDS = 2.0
ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n" + b" " * 100000


class _Trickle:
    """A TCP server on loopback that reads each request's head, then answers a byte a second until told to stop."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.stop = threading.Event()
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.socket.getsockname()[1]}"

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._trickle, args=(connection,), daemon=True).start()

    def _trickle(self, connection: socket.socket) -> None:
        with connection:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                head += chunk
            for byte in ANSWER:
                if self.stop.wait(1.0):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return


@contextmanager
def trickle():
    server = _Trickle()
    try:
        yield server
    finally:
        server.stop.set()
        server.socket.close()


def timed(call):
    began = time.monotonic()
    result = call()
    return result, time.monotonic() - began


def test_within_hands_back_the_result_the_error_or_the_deadline():
    assert within(5, "a quick call", lambda: 42) == 42
    with pytest.raises(KeyError):
        within(5, "a failing call", lambda: {}["x"])
    with pytest.raises(DeadlineExceeded, match=r"a slow call did not finish within 0.2 s in all"):
        within(0.2, "a slow call", lambda: time.sleep(5))


def test_a_pushgateway_that_trickles_is_given_up_on_within_the_deadline():
    verdicts = [Verdict.unchecked(f"c{n}.yaml", ["spark"], "gone", f"c{n}", "1.0.0", "2026-01-01T00:00:00+00:00") for n in range(3)]
    with trickle() as server:
        problems, took = timed(lambda: publish(verdicts, Targets(push=server.url), seconds=SECONDS))
        assert server.connections >= 1
    assert took < SECONDS + 3, took  # not 3 contracts x a 10 s read timeout, nor for ever
    assert len(problems) == 3 and all("DeadlineExceeded" in p for p in problems), problems
    assert "did not finish within 2 s in all" in problems[0] and "not tried" in problems[2]


def test_an_openlineage_endpoint_that_trickles_is_given_up_on_within_the_deadline(tmp_path, monkeypatch):
    pytest.importorskip("openlineage.client")
    import os

    from dc_bridge.report.openlineage import emit

    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    verdict = Verdict.unchecked("c.yaml", ["spark"], "gone", "c", "1.0.0", "2026-01-01T00:00:00+00:00")
    with trickle() as server:
        monkeypatch.setenv("OPENLINEAGE_URL", server.url)
        with pytest.raises(DeadlineExceeded, match=r"0 of 1 event\(s\) sent"):
            timed(lambda: emit([verdict], seconds=SECONDS))
        assert server.connections >= 1


def test_a_rest_catalog_that_trickles_is_unavailable_within_the_deadline(tmp_path, monkeypatch):
    pytest.importorskip("pyiceberg")
    from dc_bridge.catalog.iceberg import open_iceberg
    from dc_bridge.catalog.store import CatalogUnavailable

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with trickle() as server:
        monkeypatch.setenv("PYICEBERG_CATALOG__SLOW__TYPE", "rest")
        monkeypatch.setenv("PYICEBERG_CATALOG__SLOW__URI", server.url)
        began = time.monotonic()
        with pytest.raises(CatalogUnavailable, match=r"iceberg:slow .*DeadlineExceeded: .*within 2 s in all"):
            open_iceberg("slow", tmp_path, seconds=SECONDS)
        assert time.monotonic() - began < SECONDS + 3
        assert server.connections >= 1
