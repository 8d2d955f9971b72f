"""The repository's schemas, as jsonschema applies them: every record of the fixtures and the
users' corpus is judged as jsonschema judges it, no schema is fetched, and a refusal is
worded as the file writes its values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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


@pytest.mark.parametrize("root", [FIXTURES, REAL], ids=["fixtures", "users"])
def test_a_record_is_refused_exactly_where_jsonschema_refuses_it(root: Path) -> None:
    if not root.is_dir():
        pytest.skip(f"the users' corpus is not at {root}")
    schemas = Schemas(root / "schemas")
    records = _corpus(root)
    assert records
    for record in records:
        valid = _authority(schemas, record)
        assert (schemas.problems(record) is None) == valid, record.get("id")


def test_a_schema_is_never_fetched(tmp_path: Path) -> None:
    """A `$ref` to a URL (a stranger may edit a schema) doesn't reach the network:
    jsonschema finds no such schema, at once."""
    (tmp_path / "benchmark.schema.json").write_text(
        json.dumps({"$ref": "http://169.254.169.254/latest/meta-data/x.json"})
    )
    with pytest.raises(Exception, match="Unresolvable"):
        Schemas(tmp_path).problems({"type": "benchmark"})


def test_a_refusal_is_worded_by_jsonschema() -> None:
    schemas = Schemas(FIXTURES / "schemas")
    record = _corpus(FIXTURES)[0] | {"surprise": 1}
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
