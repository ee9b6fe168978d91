"""dc-bridge's optional extras (pyproject.toml): which module each brings, and one message for a command that
needs one that is not installed, saying how to install it both ways a user has dc-bridge."""

from __future__ import annotations

import importlib

# a module an extra brings -> the extra
EXTRAS = {"pyiceberg": "catalog", "vl_convert": "site", "openlineage": "openlineage", "pyspark": "spark", "airflow": "airflow", "dagster": "dagster"}


class MissingExtra(ValueError):
    """A command needs a module of an extra that is not installed: bad input to the install (exit 2), never an
    outage of what the module would reach."""


def install_hint(extra: str) -> str:
    return (f"install dc-bridge's `{extra}` extra (pip install 'dc-bridge[{extra}]'; in a checkout of dc-bridge, "
            f"pip install -e '.[{extra}]')")


def missing_message(exc: ModuleNotFoundError) -> str:
    """What a ModuleNotFoundError means to the user: the extra to install, or the module a configured library needs."""
    top = (exc.name or "").split(".")[0]
    if top in EXTRAS:
        return f"the Python package `{top}` is not installed: {install_hint(EXTRAS[top])}"
    return f"the Python module `{exc.name}` is not installed (a library dc-bridge uses needs it here): install the package that provides it"


def require(module: str) -> None:
    """Raise MissingExtra, with the extra to install, when `module` (one of EXTRAS) cannot be imported."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise MissingExtra(missing_message(exc)) from None
