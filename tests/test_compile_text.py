"""The compiled files' text writers (issue 15's speed work) write the bytes of the general writers they replace:
GX suites as `json.dumps(indent=2, ensure_ascii=False)`, SodaCL as PyYAML's SafeRepresenter with `|` blocks."""

import json
import random

import pytest
import yaml

from dc_bridge.contract.reading.document import YamlList, YamlMap
from dc_bridge.engines.gx.translate import suite_text
from dc_bridge.engines.compiled_text import BlockDumper as _SodaDumper

TEXTS = ["", "plain", 'quote " and \\ back', "line\nbreak\ttab", "\x00\x1f\x7f", "é 日本 \u2028", "\ud800", "😀",
         "yes", "null", "1e3", "- item", "key: value", "#comment", "  lead", "trail "]
NUMBERS = [0, -1, 10**30, True, False, None, 1.5, 0.1 + 0.2, 1e-05, 1e16, -0.0, float("nan"), float("inf"), -float("inf")]


def _value(rng: random.Random, depth: int, keys: list):
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice(TEXTS + NUMBERS)
    if roll < 0.6:
        return [_value(rng, depth + 1, keys) for _ in range(rng.randint(0, 3))]
    if roll < 0.7:
        return tuple(_value(rng, depth + 1, keys) for _ in range(rng.randint(0, 3)))
    mapping = {rng.choice(keys): _value(rng, depth + 1, keys) for _ in range(rng.randint(0, 3))}
    return YamlMap(mapping) if roll < 0.8 else mapping


def test_suite_text_is_what_json_writes():
    rng = random.Random(15)
    keys = TEXTS + [1, 2.5, True, None, float("nan")]
    for _ in range(3000):
        value = _value(rng, 0, keys)
        assert suite_text(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    assert suite_text(YamlList(["a", {"b": []}])) == json.dumps(["a", {"b": []}], indent=2) + "\n"


@pytest.mark.parametrize("value", [{"a": b"bytes"}, {"a": {1, 2}}, {(1, 2): "tuple key"}])
def test_suite_text_fails_as_json_fails(value):
    with pytest.raises(TypeError) as ours:
        suite_text(value)
    with pytest.raises(TypeError) as theirs:
        json.dumps(value, indent=2, ensure_ascii=False)
    assert str(ours.value) == str(theirs.value)


class _General(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """SodaCL's former writer (the same emitter): the representer of every value, with its one rule for text."""


_General.add_representer(str, lambda dumper, text: dumper.represent_scalar(
    "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None))


def _yaml(value, dumper) -> str:
    try:
        return yaml.dump(value, Dumper=dumper, sort_keys=False, allow_unicode=True, width=10_000)
    except (yaml.YAMLError, UnicodeEncodeError) as exc:  # libyaml writes no lone surrogate
        return f"{type(exc).__name__}: {exc}"


def test_sodacl_text_is_what_the_representer_writes():
    rng = random.Random(15)
    shared_list, shared_map = ["shared"], {"shared": "mapping"}  # met twice: an anchor and an alias
    keys = TEXTS + [1, None, True]
    for _ in range(3000):
        value = {"checks for view": [_value(rng, 1, keys), shared_list, shared_map, shared_list, shared_map]}
        assert _yaml(value, _SodaDumper) == _yaml(value, _General)
    for value in [YamlMap(a=1), ("a", "b"), {"a": YamlList([1])}]:  # what SafeRepresenter refuses, refused alike
        assert _yaml(value, _SodaDumper) == _yaml(value, _General)
