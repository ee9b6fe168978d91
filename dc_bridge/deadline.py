"""A total deadline for a call to another machine: a Pushgateway push, OpenLineage's events, a catalog over HTTP.

The clients' own timeouts bound each connect and each read: a peer that answers one byte at a time never trips
them, and would hold a run for ever. `within` runs the call in a daemon thread (in the caller's context: its
contextvars, such as the project's settings) and waits for it at most `seconds` in all; past that, the caller gets
`DeadlineExceeded` and goes on. The call's thread is left to end with its connection: a daemon thread never keeps
the process alive, and nothing the caller uses waits for it.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Callable, TypeVar

Result = TypeVar("Result")

# seconds in all: the pushes of one run (each read also bounded by the client's own timeout), one run's OpenLineage
# events, and one call to a catalog (a REST catalog's page of namespaces, a stored text)
PUSH_SECONDS = 60.0
LINEAGE_SECONDS = 60.0
CATALOG_SECONDS = 120.0


class DeadlineExceeded(TimeoutError):
    """A call to another machine did not finish within its total deadline; the caller went on without it."""


def within(seconds: float, what: str, call: Callable[[], Result]) -> Result:
    """`call()`'s result, or its exception, if it ends within `seconds`; else DeadlineExceeded naming `what`."""
    done = threading.Event()
    outcome: dict[str, object] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome["value"] = context.run(call)
        except BaseException as exc:  # handed to the caller as it is
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name=f"dc-bridge: {what}", daemon=True).start()
    if not done.wait(max(seconds, 0.0)):
        raise DeadlineExceeded(f"{what} did not finish within {seconds:g} s in all (the peer answers too slowly, or not at all); "
                               f"given up, the run goes on")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
