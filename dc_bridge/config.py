"""Project configuration: a `[tool.dc-bridge]` table in `pyproject.toml`, or a `dc-bridge.toml`.

The file is found from the working directory upwards, the nearest one winning (in one folder a
`dc-bridge.toml` before a `pyproject.toml`, and a `pyproject.toml` only when it has the table). A command
that takes contract files finds it from the contracts' folder instead, as linters find theirs per file
(`contracts_project`): a contract belongs to the project it lives in (its configuration, else the folder of
an embedded catalog found upwards), whatever folder the command runs in.
It sets the enforcement level of each validator, the drift and inheritance settings, and the
default catalog, namespace and engines; options on the command line win over it.

    [tool.dc-bridge]                       # in dc-bridge.toml: the same keys at the top level
    engines = ["spark"]
    catalog = "iceberg"                    # iceberg, iceberg:NAME (pyiceberg's own config) or spark
    namespace = "sales.customer_360"

    [tool.dc-bridge.enforcement]           # off: skip, warn: report and exit 0, strict: fail
    schema = "strict"
    inheritance = "strict"
    version-bump = "warn"
    drift = "strict"
    registration = "warn"                  # an unreachable catalog: a warning, or (strict) a failure
    monitors = "warn"                      # an anomaly a monitor finds: reported, or (strict) the contract failed
    lifecycle = "warn"                     # a run of a version past its sunset: a warning, or (strict) failed

    [tool.dc-bridge.drift]
    extra-columns = "error"                # info (the default) or error

    [tool.dc-bridge.inheritance]
    mode = "ancestors"                     # ancestors: every ancestor; parents: the contracts named only

    [tool.dc-bridge.lifecycle]
    deprecation-window = "30d"             # check-version --against-registered: a breaking change waits this long after
                                           # the version it replaces was deprecated (default: no wait)

    [tool.dc-bridge.monitors]              # bands learned from a history store (docs/monitoring.md)
    metrics = ["rows", "freshness_age", "arrival"]
    sensitivity = 4.0
    lookback = 60
    warm-up = 7
    seasonality = "auto"                   # auto, off, weekday or hour

An unknown key or value stops the command with the file, the key and the closest valid one. The
settings in effect travel in a context variable set by the command (`using`), as `--var` values do,
so the code that applies them (lint, drift, check-version) needs no new argument on every path.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import glob
import math
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, before it joined the standard library
    import tomli as tomllib

LEVELS = ("off", "warn", "strict")
VALIDATORS = ("schema", "inheritance", "version-bump", "drift", "registration", "monitors", "lifecycle")
# those `--enforce` sets (lint, the evolution commands, register): the monitors' and lifecycle's levels are read by `run`
# alone, whose `--enforce` sets the monitors' (RUN_VALIDATORS): the others change what those commands report, never
# what a run accepts
OPTION_VALIDATORS = tuple(validator for validator in VALIDATORS if validator not in ("monitors", "lifecycle"))
RUN_VALIDATORS = ("monitors",)
ENGINES = ("gx", "soda", "spark")
# what a validator is set to when nothing says otherwise: today's behaviour, where every validator's errors
# fail its command; registration warns, as the seed asks (an unreachable catalog is a soft failure); monitors
# report an anomaly and fail nothing until a team has seen what they say
DEFAULT_LEVELS: dict[str, str] = {"schema": "strict", "inheritance": "strict", "version-bump": "strict",
                                  "drift": "strict", "registration": "warn", "monitors": "warn",
                                  # a run of a version past its sunset: a warning until a team chooses to fail it
                                  "lifecycle": "warn"}
FILE_NAMES = ("dc-bridge.toml", "pyproject.toml")
# the embedded catalog's file in a project's folder (catalog/iceberg.py EMBEDDED_FOLDER / CATALOG_FILE): marks a project
# that has no configuration file
EMBEDDED_CATALOG = Path(".dc-bridge") / "iceberg" / "catalog.db"



@dataclass(frozen=True)
class Number:
    """A numeric setting: a whole number when `whole`, at least `minimum` (above it when not `inclusive`)."""
    whole: bool
    minimum: float
    inclusive: bool = True

    def describe(self) -> str:
        return f"{'a whole number' if self.whole else 'a number'} {'of at least' if self.inclusive else 'above'} {self.minimum:g}"

    def holds(self, value: Any) -> bool:
        # finite: an infinite sensitivity or floor would make every band endless, and NaN compares as nothing
        kinds = (int,) if self.whole else (int, float)
        return (isinstance(value, kinds) and not isinstance(value, bool) and math.isfinite(value)
                and (value >= self.minimum if self.inclusive else value > self.minimum))


@dataclass(frozen=True)
class PerName:
    """A table of names among `names`, each to a `Number`."""
    names: tuple[str, ...]
    number: Number


# the metrics a run records (history/series.py), which a monitors table may name: the monitors' registry
# (monitors/metrics.py METRICS) defines each, and the contract's lint, below the monitors, checks names against this
MONITOR_METRICS = ("rows", "slice_rows", "freshness_age", "arrival", "check")


# the window keys' defaults (monitors/model.py MonitorSettings takes them from here): the contract's lint checks
# the pair as a run will have it, whichever of its project and its own table sets each
MONITOR_WINDOW = {"lookback": 60, "warm-up": 7}


def monitor_window(*tables: Mapping[str, Any]) -> tuple[int, int]:
    """(lookback, warm-up) as monitors tables set them over the defaults, the later table's keys over the earlier's."""
    merged = {**MONITOR_WINDOW, **{key: table[key] for table in tables for key in MONITOR_WINDOW if key in table}}
    return merged["lookback"], merged["warm-up"]


# the keys of a monitors table, in the project's file and a contract's `x-dc-bridge-monitors` alike
MONITOR_KEYS: dict[str, Any] = {
    "metrics": [MONITOR_METRICS],
    "sensitivity": Number(whole=False, minimum=0, inclusive=False),
    "lookback": Number(whole=True, minimum=1),
    "warm-up": Number(whole=True, minimum=1),
    "seasonality": ("auto", "off", "weekday", "hour"),
    "min-band-relative": Number(whole=False, minimum=0),
    # per metric, in the metric's own unit (rows, seconds, a ratio): one number cannot fit rows and ages alike
    "min-band-absolute": PerName(MONITOR_METRICS, Number(whole=False, minimum=0)),
}

# the configuration's schema: key -> allowed values (a tuple), `str` for free text, a Number, a list, or a nested table
_SCHEMA: dict[str, Any] = {
    "engines": [ENGINES],
    "catalog": str,
    "namespace": str,
    "enforcement": {validator: LEVELS for validator in VALIDATORS},
    "drift": {"extra-columns": ("info", "error")},
    "inheritance": {"mode": ("ancestors", "parents")},
    "monitors": MONITOR_KEYS,
    "lifecycle": {"deprecation-window": str},
}

# finding code prefix -> the validator whose level applies to it (the first matching prefix wins);
# DCB0xx (a file that cannot be read) belongs to none: no level makes an unreadable contract pass
_VALIDATOR_OF_CODE = (("DCB24", "inheritance"), ("DCB2", "version-bump"), ("DCB3", "drift"), ("DCB1", "schema"))


class ConfigError(ValueError):
    """The configuration file has a key or value dc-bridge does not know; the message says which."""


@dataclass(frozen=True)
class Settings:
    """The settings in effect: the file's, with the command line's on top."""

    levels: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_LEVELS))
    extra_columns: str = "info"
    inheritance_mode: str = "ancestors"
    catalog: str | None = None
    namespace: str | None = None
    engines: tuple[str, ...] | None = None
    # the [tool.dc-bridge.monitors] table as written (validated; monitors/settings.py builds MonitorSettings of it)
    monitors: Mapping[str, Any] = field(default_factory=dict)
    file: str | None = None  # where they came from; None when no file was found
    # the folder the project was looked for from (the contracts'), where the embedded catalog is looked for when no
    # configuration file decided it; None: the working directory
    start: Path | None = field(default=None, compare=False)
    # [tool.dc-bridge.lifecycle] deprecation-window: how long a registered version is deprecated before a breaking change
    # may replace it (check-version --against-registered); None: no wait
    deprecation_window: timedelta | None = None

    def level(self, validator: str) -> str:
        return self.levels[validator]

    @property
    def project(self) -> Path | None:
        """The project's folder: the one that holds the configuration file (None when none was found)."""
        return Path(self.file).resolve().parent if self.file else None

    def source(self, validator: str) -> str:
        """Where a level comes from, for messages that say why a validator was skipped or only warned."""
        return f"enforcement.{validator} = {self.levels[validator]!r}" + (f" in {self.file}" if self.file else "")

    def overridden(self, levels: Mapping[str, str]) -> Settings:
        return replace(self, levels={**self.levels, **levels})

    def for_running(self) -> Settings:
        """These settings with the validators' default levels, for `run` and `compile`: what they accept never depends
        on an enforcement level (lint and the evolution commands report by them); the monitors' and lifecycle's levels are
        a run's own."""
        return replace(self, levels={**DEFAULT_LEVELS, "monitors": self.levels["monitors"], "lifecycle": self.levels["lifecycle"]})


_CURRENT: contextvars.ContextVar[Settings] = contextvars.ContextVar("dc_bridge_settings", default=Settings())


def current() -> Settings:
    """The settings of the running command (the defaults outside one, and in the Python API)."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(settings: Settings) -> Iterator[Settings]:
    token = _CURRENT.set(settings)
    try:
        yield settings
    finally:
        _CURRENT.reset(token)


def find_file(start: str | Path | None = None) -> tuple[Path, dict] | None:
    """The nearest configuration file from `start` (the working directory) upwards, and its dc-bridge table."""
    folder = Path(start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        for name in FILE_NAMES:
            path = candidate / name
            if not path.is_file():
                continue
            data = _read_toml(path)
            if name == "dc-bridge.toml":
                return path, data
            table = data.get("tool", {}).get("dc-bridge")
            if table is not None:
                return path, table
    return None


def _read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None


def load(start: str | Path | None = None) -> Settings:
    """The project's settings (the defaults when no file is found); ConfigError on an unknown key or value."""
    found = find_file(start)
    if found is None:
        return Settings(start=Path(start).resolve() if start else None)
    path, table = found
    prefix = "tool.dc-bridge." if path.name == "pyproject.toml" else ""
    _validate(table, _SCHEMA, str(path), prefix)
    lookback, warm_up = monitor_window(table.get("monitors", {}))
    if lookback < warm_up:  # said here, as lint says it of a contract's own table: not first when a run needs the band
        raise ConfigError(f"{path}: `{prefix}monitors.lookback` ({lookback}) is shorter than `{prefix}monitors.warm-up` ({warm_up}): "
                          f"no band could ever be learned; set a lookback of at least the warm-up")
    enforcement = table.get("enforcement", {})
    return Settings(
        levels={**DEFAULT_LEVELS, **enforcement},
        extra_columns=table.get("drift", {}).get("extra-columns", "info"),
        inheritance_mode=table.get("inheritance", {}).get("mode", "ancestors"),
        catalog=table.get("catalog"),
        namespace=table.get("namespace"),
        engines=tuple(table["engines"]) if "engines" in table else None,
        monitors=dict(table.get("monitors", {})),
        file=str(path),
        start=Path(start).resolve() if start else None,
        deprecation_window=_window(table.get("lifecycle", {}).get("deprecation-window"), str(path), prefix),
    )


def _window(text: str | None, file: str, prefix: str) -> timedelta | None:
    """`lifecycle.deprecation-window` as a duration (`30d`, `P4W`); ConfigError naming the key otherwise."""
    if text is None:
        return None
    from dc_bridge.contract.durations import parse_duration

    try:
        window = parse_duration(text)
    except ValueError as exc:
        raise ConfigError(f"{file}: `{prefix}lifecycle.deprecation-window` {exc}") from None
    if window <= timedelta(0):
        raise ConfigError(f"{file}: `{prefix}lifecycle.deprecation-window` must be longer than nothing, not {text!r}")
    return window


@dataclass(frozen=True)
class Project:
    """The project a folder belongs to: the folder of its configuration file (`file`), else of an embedded catalog
    found upwards (`file` None)."""
    folder: Path
    file: Path | None

    def describe(self) -> str:
        return f"{self.folder} ({self.file.name if self.file else 'its embedded catalog, ' + str(EMBEDDED_CATALOG)})"


def find_project(start: str | Path | None = None) -> Project | None:
    """The project of `start` (the working directory): the nearest configuration file upwards, else the nearest
    embedded catalog upwards, else None. A configuration file further up wins over a catalog nearer, as
    catalog/iceberg.py `embedded_folder` places the catalog beside the configuration."""
    found = find_file(start)
    if found is not None:
        return Project(found[0].parent, found[0])
    folder = Path(start or Path.cwd()).resolve()
    catalog = next((f for f in (folder, *folder.parents) if (f / EMBEDDED_CATALOG).is_file()), None)
    return Project(catalog, None) if catalog is not None else None


def _folder_of(contract: str) -> Path | None:
    """The folder a contract argument lives in (a glob's: the part before its first wildcard); None for a URI."""
    if "://" in contract and not contract.lower().startswith("file:"):
        return None
    parts = Path(contract.removeprefix("file:")).parts
    fixed = next((i for i, part in enumerate(parts) if glob.has_magic(part)), None)
    return Path(*parts[:fixed]) if fixed is not None else Path(*parts).parent if parts else Path(".")


def contracts_project(contracts: Sequence[str]) -> tuple[Settings, str | None]:
    """The settings of the project the contracts live in (docs/catalogs.md, "Which project a contract belongs to"), and a
    one-line notice when that is not the working directory's project. A contract in no project takes the working
    directory's. Contracts of different projects in one command are refused (ConfigError): each project's settings
    (engines, enforcement, monitors, catalog) would apply to its own contracts only, so one command cannot take them."""
    here = find_project()
    owners: dict[Project | None, list[str]] = {}
    for contract in contracts:
        folder = _folder_of(contract)
        owners.setdefault((find_project(folder) if folder is not None else None) or here, []).append(contract)
    if len(owners) > 1:
        listed = "; ".join(f"{', '.join(files)} in {project.describe() if project else 'no project'}" for project, files in owners.items())
        raise ConfigError(f"the contracts belong to different projects ({listed}): each project's configuration applies to "
                          f"its own contracts, so check each project's contracts in a command of its own")
    project = next(iter(owners), here)
    if project == here:
        return load(), None
    named = contracts[0] if len(contracts) == 1 else f"the {len(contracts)} contracts"
    notice = (f"note: {named} belong{'s' if len(contracts) == 1 else ''} to the project in {project.describe()}, not to the "
              f"working directory's ({here.describe() if here else 'none'}): that project's configuration and catalog apply")
    return load(project.folder), notice


def validate_table(table: Any, schema: Mapping[str, Any], file: str, prefix: str) -> None:
    """`table` against `schema` (as `_SCHEMA` is written); ConfigError naming `file` and the key's path after `prefix`."""
    _validate(table, schema, file, prefix)


def _validate(table: Any, schema: Mapping[str, Any], file: str, prefix: str) -> None:
    if not isinstance(table, dict):
        raise ConfigError(f"{file}: `{prefix.rstrip('.')}` must be a table")
    for key, value in table.items():
        if key not in schema:
            raise ConfigError(f"{file}: unknown key `{prefix}{key}`{_did_you_mean(key, schema)}")
        allowed = schema[key]
        name = f"{prefix}{key}"
        if isinstance(allowed, dict):
            _validate(value, allowed, file, name + ".")
        elif allowed is str:
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{file}: `{name}` must be a non-empty string, not {value!r}")
        elif isinstance(allowed, Number):
            if not allowed.holds(value):
                raise ConfigError(f"{file}: `{name}` must be {allowed.describe()}, not {value!r}")
        elif isinstance(allowed, PerName):
            if not isinstance(value, dict) or not value:
                raise ConfigError(f"{file}: `{name}` must be a table of metric names, each to {allowed.number.describe()} in "
                                  f"the metric's own unit (e.g. {{rows = 1, freshness_age = 900}}), not {value!r}")
            for item, number in value.items():
                if item not in allowed.names:
                    raise ConfigError(f"{file}: `{name}` cannot hold {item!r}{_did_you_mean(str(item), allowed.names)}")
                if not allowed.number.holds(number):
                    raise ConfigError(f"{file}: `{name}.{item}` must be {allowed.number.describe()}, not {number!r}")
        elif isinstance(allowed, list):  # a list whose items are one of allowed[0]
            if not isinstance(value, list) or not value:
                raise ConfigError(f"{file}: `{name}` must be a non-empty list of {', '.join(allowed[0])}")
            for item in value:
                _check_value(item, allowed[0], file, name)
        else:
            _check_value(value, allowed, file, name)


def _check_value(value: Any, allowed: tuple[str, ...], file: str, name: str) -> None:
    if value not in allowed:
        raise ConfigError(f"{file}: `{name}` cannot be {value!r}{_did_you_mean(str(value), allowed)}")


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    choices = list(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.5)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"{hint} (valid: {', '.join(choices)})"


def parse_level_option(text: str, validators: tuple[str, ...] = OPTION_VALIDATORS) -> tuple[str, str]:
    """`--enforce VALIDATOR=LEVEL` -> (validator, level), for a command that reads `validators`' levels; ValueError
    with the closest valid word, or saying which command reads a validator this one does not."""
    validator, eq, level = text.partition("=")
    validator, level = validator.strip(), level.strip()
    if not eq:
        raise ValueError(f"{text!r} is not VALIDATOR=LEVEL, e.g. {validators[0]}=warn")
    if validator == "monitors" and validator not in validators:
        raise ValueError("this command runs no monitors: their level is set by `dc-bridge run --enforce monitors=LEVEL`, or "
                         "`monitors` under [tool.dc-bridge.enforcement] (pyproject.toml) or [enforcement] (dc-bridge.toml)")
    if validator in OPTION_VALIDATORS and validator not in validators:
        raise ValueError(f"`{validator}` sets what lint, check-version, drift and register report, never what a run accepts; "
                         f"a run's --enforce sets {', '.join(validators)}")
    if validator not in validators:
        raise ValueError(f"unknown validator {validator!r}{_did_you_mean(validator, validators)}")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}{_did_you_mean(level, LEVELS)}")
    return validator, level


def validator_of(code: str) -> str | None:
    return next((validator for prefix, validator in _VALIDATOR_OF_CODE if code.startswith(prefix)), None)


def enforce(findings: Iterable, settings: Settings | None = None) -> list:
    """Findings as the enforcement levels want them: a validator `off` drops its findings, `warn` makes
    its errors warnings (reported, the exit code unaffected), `strict` leaves them as they are."""
    settings = settings or current()
    kept = []
    for finding in findings:
        validator = validator_of(finding.code)
        level = settings.level(validator) if validator else "strict"
        if level == "off":
            continue
        if level == "warn" and finding.level == "error":
            finding = replace(finding, severity="warning")
        kept.append(finding)
    return kept
