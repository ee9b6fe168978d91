"""Where a registered version is in its life: proposed or draft, active, deprecated, sunset, retired.

Each registered version (`ID@VERSION`, registry.py) has a chain of transitions kept beside its record in the
namespace's properties, one property per transition, keyed by the state it leaves:

    dc-bridge.lifecycle.<id>@<version>.start          the state it was registered in (its text's `status`)
    dc-bridge.lifecycle.<id>@<version>.from-<STATE>   the move out of STATE: to, time, reason, sunset, successor

(the `<id>@<version>` part is registry.record_key's, a digest for ids and versions that are not plain). A
version with no `start` is `active` (as every version registered before the lifecycle existed is). States only
move forward, one step at a time (`NEXT`), so each state is left at most once: two writers moving one version at
once write the same key, and `Store.claim` lets one of them set it (the embedded catalog's unique key decides)
and tells the other, who wrote nothing. Nothing is ever overwritten, so the chain is the audit trail.

A deprecated version has a sunset instant (a date means its first second, UTC) and may name a successor; from
that instant on it is `sunset` without a transition (`Life.by_date`), and a producer may end it early with one.
`retired` comes only from `sunset`. Pure but for `move` and `record_start`, which write through a Store.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import get_args

from dc_bridge.catalog.registry import BadRecord, history, record_key, records
from dc_bridge.catalog.store import Store
from dc_bridge.contract.evolution.versioning import SemVer
from dc_bridge.verdict import LifecycleState

STATES: tuple[str, ...] = get_args(LifecycleState)
# state -> the states a transition may move it to: forward, never skipping one
NEXT: dict[str, tuple[str, ...]] = {"proposed": ("draft", "active"), "draft": ("active",), "active": ("deprecated",),
                                    "deprecated": ("sunset",), "sunset": ("retired",), "retired": ()}
# the states a version may be registered in (its text's `status`); a later one is reached by transitions only
STARTS = ("proposed", "draft", "active")
IMPLICIT = "active"  # a version registered without a status, or before the lifecycle existed
_PREFIX = "dc-bridge.lifecycle."
MAX_REASON = 500  # a catalog bounds a property's value (1,000 characters in pyiceberg's SQL catalog)
_DAY = 86_400


class LifecycleRefused(ValueError):
    """A transition that may not be made (backwards, skipping, a bad date or successor): bad input, nothing written."""


class LostRace(RuntimeError):
    """Another writer moved the version out of the same state first; this one wrote nothing."""


@dataclass(frozen=True)
class Transition:
    """One move of `id`@`version` from `from_state` (None: its registration) to `to`, at `at` (ISO 8601 UTC)."""
    id: str
    version: str
    from_state: str | None
    to: str
    at: str
    reason: str | None = None
    sunset: str | None = None  # ISO 8601 UTC instant, for `deprecated`
    successor: str | None = None  # ID@VERSION, for `deprecated`

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, key: str, text: str) -> Transition:
        try:
            data = json.loads(text)
            made = cls(**{name: data.get(name) for name in cls.__dataclass_fields__})
        except (ValueError, TypeError) as exc:
            raise BadRecord(f"property {key} is not a dc-bridge lifecycle record ({exc}); restore it or remove it") from None
        if made.to not in STATES or (made.from_state is not None and made.from_state not in STATES):
            raise BadRecord(f"property {key} is not a dc-bridge lifecycle record (state {made.to!r})")
        return made


@dataclass(frozen=True)
class Life:
    """A version's state at `now`: `state` is what a run acts on; `stored` the last transition's (they differ when the
    sunset date has passed: `by_date`)."""
    state: str
    stored: str
    transitions: tuple[Transition, ...]
    sunset: datetime | None
    successor: str | None
    by_date: bool

    def days_to_sunset(self, now: datetime) -> int | None:
        """Whole days left until the sunset (rounded up; 0 or less once it passed), None without one."""
        return None if self.sunset is None else math.ceil((self.sunset - now).total_seconds() / _DAY)

    def since(self) -> str | None:
        return self.transitions[-1].at if self.transitions else None

    def passed(self) -> set[str]:
        """Every state the version has been in, the current one included."""
        implicit = {IMPLICIT} if not self.transitions or self.transitions[0].from_state is not None else set()
        return {*implicit, *(t.to for t in self.transitions), self.state}

    def as_dict(self, now: datetime) -> dict:
        return {"state": self.state, "stored_state": self.stored, "by_date": self.by_date,
                "sunset": iso(self.sunset) if self.sunset else None, "days_to_sunset": self.days_to_sunset(now),
                "successor": self.successor, "transitions": [asdict(t) for t in self.transitions]}


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _base(contract_id: str, version: str) -> str:
    return _PREFIX + record_key(contract_id, version).removeprefix("dc-bridge.contract.")


def key(contract_id: str, version: str, leaving: str | None) -> str:
    """The property of the transition out of `leaving` (None: the state registered in)."""
    return f"{_base(contract_id, version)}.{'start' if leaving is None else f'from-{leaving}'}"


def life(properties: dict[str, str] | None, contract_id: str, version: str, now: datetime) -> Life:
    """The version's chain read from the properties, and its state at `now`."""
    properties = properties or {}
    chain: list[Transition] = []
    start = properties.get(key(contract_id, version, None))
    state = IMPLICIT
    if start is not None:
        chain.append(Transition.from_json(key(contract_id, version, None), start))
        state = chain[-1].to
    while (text := properties.get(key(contract_id, version, state))) is not None and len(chain) <= len(STATES):
        chain.append(Transition.from_json(key(contract_id, version, state), text))
        state = chain[-1].to
    deprecation = next((t for t in chain if t.to == "deprecated"), None)
    sunset = parse_instant(deprecation.sunset) if deprecation and deprecation.sunset else None
    by_date = state == "deprecated" and sunset is not None and now >= sunset
    return Life("sunset" if by_date else state, state, tuple(chain), sunset,
                deprecation.successor if deprecation else None, by_date)


def parse_instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")


def sunset_instant(text: str) -> datetime:
    """`--sunset`: an ISO 8601 date (its first second, UTC) or a date and time with its offset (`Z`, `+02:00`);
    LifecycleRefused for any other form, a time without an offset among them (which zone would it be in?)."""
    text = text.strip()
    hint = "give an ISO 8601 date such as 2027-03-31 (its start, UTC), or a time with its offset such as 2027-03-31T18:00:00+02:00"
    if _DATE_ONLY.fullmatch(text):
        try:
            return datetime.combine(date.fromisoformat(text), time(0), tzinfo=timezone.utc)
        except ValueError as exc:
            raise LifecycleRefused(f"--sunset {text!r} is no date ({exc}); {hint}") from None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00")) if "T" in text else None
    except ValueError:
        moment = None
    if moment is None:
        raise LifecycleRefused(f"--sunset {text!r} is not an ISO 8601 date; {hint}")
    if moment.tzinfo is None:
        raise LifecycleRefused(f"--sunset {text!r} has a time but no offset, so no one instant; {hint}")
    return moment.astimezone(timezone.utc).replace(microsecond=0)


def _registered_version(properties: dict[str, str], contract_id: str, version: str | None, where: str) -> str:
    """The registered version `version` names (SemVer-equal), or the current one when None; LifecycleRefused otherwise."""
    versions = history(properties, contract_id)
    if not versions:
        known = sorted({r.id for r in records(properties)})
        raise LifecycleRefused(f"{contract_id!r} is not registered in {where} (registered there: "
                               f"{', '.join(known[:10]) or 'none'}); register it first")
    if version is None:
        return versions[-1].version
    wanted = SemVer.parse(version)
    found = next((r.version for r in versions if wanted is not None and SemVer.parse(r.version) == wanted), None)
    if found is None:
        raise LifecycleRefused(f"{contract_id} {version!r} is not registered in {where} (registered versions: "
                               f"{', '.join(r.version for r in versions)})")
    return found


def split_ref(ref: str) -> tuple[str, str | None]:
    """`ID@VERSION` -> (ID, VERSION); `ID` -> (ID, None). The last `@` splits: an id may hold one, a version never."""
    contract_id, at, version = ref.rpartition("@")
    return (contract_id, version) if at and contract_id and SemVer.parse(version) is not None else (ref, None)


@dataclass(frozen=True)
class Request:
    """What `dc-bridge lifecycle` asks for."""
    contract_id: str
    version: str | None
    to: str
    reason: str | None = None
    sunset: str | None = None
    successor: str | None = None


def plan(properties: dict[str, str] | None, namespace: str, label: str, request: Request, now: datetime) -> tuple[str, Transition]:
    """(the property to claim, the transition) for `request`, or LifecycleRefused saying why not. Pure."""
    where = f"{label} namespace {namespace}"
    if properties is None:
        raise LifecycleRefused(f"namespace {namespace} does not exist in {label}: nothing is registered there")
    if request.to not in STATES:
        raise LifecycleRefused(f"--to {request.to!r} is no state; the states are {', '.join(STATES)}")
    if request.reason is not None and len(request.reason) > MAX_REASON:
        raise LifecycleRefused(f"--reason is {len(request.reason)} characters long; at most {MAX_REASON} are kept")
    version = _registered_version(properties, request.contract_id, request.version, where)
    now_life = life(properties, request.contract_id, version, now)
    current = now_life.state
    allowed = NEXT[current]
    name = f"{request.contract_id} {version}"
    if request.to not in allowed:
        order = " -> ".join(("proposed/draft", *STATES[2:]))
        why = ("it is there already" if request.to == current
               else "states only move forward" if STATES.index(request.to) < STATES.index(current)
               else f"a state may not be skipped ({current} moves to {' or '.join(allowed) or 'nothing'})")
        raise LifecycleRefused(f"{name} is {current}{' (its sunset date has passed)' if now_life.by_date else ''}; "
                               f"it cannot move to {request.to}: {why} ({order})")
    if (request.sunset or request.successor) and request.to != "deprecated":
        raise LifecycleRefused("--sunset and --successor belong to --to deprecated")
    sunset = successor = None
    if request.to == "deprecated":
        if not request.sunset:
            raise LifecycleRefused(f"--to deprecated needs --sunset DATE: the day {name} stops being served, so its "
                                   f"consumers know how long they have")
        moment = sunset_instant(request.sunset)
        if moment <= now:
            raise LifecycleRefused(f"--sunset {request.sunset} ({iso(moment)}) is not in the future (now {iso(now)}); a "
                                   f"deprecation gives its consumers time (to end it now: --to deprecated with a later date, "
                                   f"then --to sunset)")
        sunset = iso(moment)
        if request.successor:
            successor = _successor(properties, request.successor, (request.contract_id, version), where, now)
    from_state = "sunset" if now_life.by_date else now_life.stored
    transition = Transition(request.contract_id, version, from_state, request.to, iso(now),
                            request.reason, sunset, successor)
    return key(request.contract_id, version, now_life.stored), transition


def _successor(properties: dict[str, str], ref: str, itself: tuple[str, str], where: str, now: datetime) -> str:
    contract_id, version = split_ref(ref)
    if version is None:
        raise LifecycleRefused(f"--successor {ref!r} is not ID@VERSION (a registered version, e.g. orders@2.0.0)")
    found = _registered_version(properties, contract_id, version, where)
    if (contract_id, found) == itself:
        raise LifecycleRefused(f"--successor {ref} is the version being deprecated")
    state = life(properties, contract_id, found, now).state
    if state in ("sunset", "retired"):
        raise LifecycleRefused(f"--successor {ref} is {state} itself: name a version its consumers can move to")
    return f"{contract_id}@{found}"


def move(store: Store, namespace: str, request: Request, now: datetime | None = None) -> Transition:
    """Make the transition, or LifecycleRefused (nothing written) / LostRace (another writer left the state first)."""
    now = now or utc_now()
    prop, transition = plan(store.properties(namespace), namespace, store.label, request, now)
    if not store.claim(namespace, prop, transition.to_json()):
        theirs = Transition.from_json(prop, (store.properties(namespace) or {}).get(prop, "{}"))
        raise LostRace(f"{transition.id} {transition.version} was moved out of {transition.from_state} by another writer "
                       f"first: to {theirs.to} at {theirs.at} (reason {shown(theirs.reason)}); nothing was written: "
                       f"read its state again with `dc-bridge registrations`")
    return transition


def record_start(store: Store, namespace: str, contract_id: str, version: str, status: str | None, now: datetime | None = None) -> str | None:
    """At registration: the text's `status` as the version's first state, when it is one a version may start in.
    Returns a note when the status is not recorded (a later state, or one dc-bridge does not know)."""
    if status is None:
        return None
    if status not in STARTS:
        return (f"the text's status {status!r} is not recorded: a version is registered {', '.join(STARTS)} "
                f"(without a status: {IMPLICIT}) and reaches later states with `dc-bridge lifecycle`")
    start = Transition(contract_id, version, None, status, iso(now or utc_now()), "registered with this status")
    store.claim(namespace, key(contract_id, version, None), start.to_json())  # registered again: the first one stays
    return None


def text_status(document) -> str | None:
    """A parsed contract's status: ODCS `status`, DCS `info.status`, lower case; None when it has none."""
    if not isinstance(document, dict):
        return None
    found = document.get("status") if "apiVersion" in document else (document.get("info") or {}).get("status")
    return found.strip().lower() if isinstance(found, str) and found.strip() else None


def contradiction(status: str | None, current: Life) -> str | None:
    """A text whose status is a state the version has not been in (a later one, one skipped) contradicts the registry;
    one it has passed is only older than it."""
    if status is None or status not in STATES or status in current.passed():
        return None
    return f"the contract's status is {status}, but the registry says {current.state}: the registry decides"


def shown(text: str | None) -> str:
    """A user's text in a message: quoted, its newlines and control characters escaped."""
    return "none" if text is None else json.dumps(text, ensure_ascii=False)


# what a run's version weighs as, by its state and the enforcement level (`[tool.dc-bridge.enforcement] lifecycle`):
# a deprecated version is a note at any level; past its sunset the level decides; off: a note too
_WEIGHS = {("sunset", "warn"): "warning", ("sunset", "strict"): "failed", ("retired", "warn"): "warning",
           ("retired", "strict"): "failed"}


def run_finding(current: Life, level: str, where: str, now: datetime, status: str | None = None):
    """The verdict's LifecycleVerdict for a run of a version in `current`; None for a version with nothing to say
    (proposed, draft, active, and no contradiction)."""
    from dc_bridge.verdict import LifecycleVerdict

    conflict = contradiction(status, current)
    if current.state not in ("deprecated", "sunset", "retired") and conflict is None:
        return None
    days = current.days_to_sunset(now)
    parts = [{"deprecated": f"deprecated, sunset {iso(current.sunset) if current.sunset else 'not dated'}"
                            + (f" in {days} day{'s' * (days != 1)}" if days is not None else ""),
              "sunset": "sunset" + (f" since {iso(current.sunset)} (its date passed)" if current.by_date else
                                    f" since {current.since()}"),
              "retired": f"retired since {current.since()}"}.get(current.state, current.state)]
    if current.successor:
        parts.append(f"successor {current.successor}")
    if current.state in ("sunset", "retired"):
        parts.append(f"enforcement.lifecycle = {level!r}")
    if conflict:
        parts.append(conflict)
    return LifecycleVerdict(state=current.state, weighs_as=_WEIGHS.get((current.state, level), "passed"), level=level,
                            message="; ".join(parts), sunset=iso(current.sunset) if current.sunset else None,
                            sunset_timestamp=current.sunset.timestamp() if current.sunset else None, days_to_sunset=days,
                            successor=current.successor, contradiction=conflict, where=where)


def _days(span: timedelta) -> str:
    days = span.total_seconds() / _DAY
    return f"{days:.0f} day{'s' * (round(days) != 1)}" if days >= 1 else f"{span.total_seconds() / 3600:.1f} hours"


def breaking_wait(current: Life, name: str, window: timedelta, now: datetime) -> str | None:
    """Why a breaking change may not replace the registered version `name` yet (`[tool.dc-bridge.lifecycle]
    deprecation-window`), or None when it may: an active version must be deprecated first and stay so for the window;
    a proposed or draft one has no consumers to wait for, a sunset or retired one none left."""
    if current.state in ("proposed", "draft", "sunset", "retired"):
        return None
    deprecation = next((t for t in current.transitions if t.to == "deprecated"), None)
    if deprecation is None:
        return (f"{name} is active: its consumers get the deprecation window of {_days(window)} first (deprecate it with "
                f"`dc-bridge lifecycle {name.replace(' ', '@')} --to deprecated --sunset DATE`, then wait)")
    since = parse_instant(deprecation.at)
    if now - since >= window:
        return None
    return (f"{name} was deprecated {deprecation.at}, {_days(now - since)} ago: the deprecation window is {_days(window)}, "
            f"so wait until {iso(since + window)} ({_days(since + window - now)} more)")
