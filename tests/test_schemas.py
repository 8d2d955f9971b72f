"""The compiled validator (jsonschema-rs) only ever says "valid" where jsonschema, the
authority, does: on every record of the users' corpus and the fixtures, and on those records
mutated every way a stranger's pull request might. A refusal is always jsonschema's."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roofbot.adapters.schemas import Schemas
from tests.conftest import FIXTURES, REAL


def _corpus(root: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted((root / "data").rglob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            out.append(data)
    return out


def _authority(schemas: Schemas, record: dict[str, Any]) -> bool:
    validator = schemas.validator(record["type"])
    return validator is None or bool(validator.is_valid(record))


def _compiled(schemas: Schemas, record: dict[str, Any]) -> bool | None:
    fast = schemas.fast(record["type"])
    return None if fast is None else fast(record)


@pytest.fixture(scope="module")
def real() -> tuple[Schemas, list[dict[str, Any]]]:
    if not REAL.is_dir():
        pytest.skip(f"the users' corpus is not at {REAL}; the fixtures' test still runs")
    return Schemas(REAL / "schemas"), _corpus(REAL)


@pytest.mark.parametrize("root", [FIXTURES, REAL], ids=["fixtures", "users"])
def test_both_validators_agree_on_every_record(root: Path) -> None:
    if not root.is_dir():
        pytest.skip(f"the users' corpus is not at {root}")
    schemas = Schemas(root / "schemas")
    records = _corpus(root)
    compiled = [r for r in records if schemas.fast(r["type"]) is not None]
    assert len(compiled) >= len(records) * 0.9  # every type with a schema compiles
    for record in compiled:
        assert _compiled(schemas, record) == _authority(schemas, record), record.get("id")


JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["2025-01-01", "2025-01-01\n", "٢٠٢٥-٠١-٠١", "a-b", "A-B", "a--b", "-a"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_the_compiled_validator_never_passes_what_jsonschema_refuses(
    real: tuple[Schemas, list[dict[str, Any]]], data: st.DataObject
) -> None:
    schemas, records = real
    record = copy.deepcopy(data.draw(st.sampled_from(records)))
    for _ in range(data.draw(st.integers(1, 3))):
        keys = sorted(record)
        how = data.draw(st.sampled_from(["replace", "drop", "add", "nest"]))
        key = data.draw(st.sampled_from(keys))
        if how == "replace" and key != "type":
            record[key] = data.draw(JUNK)
        elif how == "drop" and key != "type":
            del record[key]
        elif how == "add":
            record[data.draw(st.text(min_size=1, max_size=8))] = data.draw(JUNK)
        elif how == "nest" and isinstance(record[key], list | dict) and record[key]:
            inner = record[key]
            slot = data.draw(
                st.sampled_from(sorted(inner) if isinstance(inner, dict) else range(len(inner)))
            )
            inner[slot] = data.draw(JUNK)  # type: ignore[index]
    if _compiled(schemas, record):
        assert _authority(schemas, record), record


def test_a_schema_is_never_fetched(tmp_path: Path) -> None:
    """A `$ref` to a URL (a stranger may edit a schema) doesn't reach the network: the
    compiled validator refuses to build, and jsonschema decides."""
    (tmp_path / "benchmark.schema.json").write_text(
        json.dumps({"$ref": "http://169.254.169.254/latest/meta-data/x.json"})
    )
    assert Schemas(tmp_path).fast("benchmark") is None


def test_a_refusal_is_worded_by_jsonschema() -> None:
    schemas = Schemas(FIXTURES / "schemas")
    record = _corpus(FIXTURES)[0] | {"surprise": 1}
    assert _compiled(schemas, record) is False
    problem = schemas.problems(record)
    assert problem is not None and "Additional properties are not allowed" in problem


def test_a_schema_error_shows_json_null_not_python_none() -> None:
    schemas = Schemas(FIXTURES / "schemas")
    path = FIXTURES / "data" / "benchmarks" / "mpt7b-a100-bs1-per-user-decode-tps.json"
    record = json.loads(path.read_text("utf-8"))
    record["value"] = None
    problem = schemas.problems(record)
    assert problem is not None and "at value: null is not of type 'number'" in problem
    assert "None" not in problem
