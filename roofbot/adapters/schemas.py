"""The repository's own JSON Schemas (`schemas/<type>.schema.json`).

A compiled validator (jsonschema-rs, in Rust) answers the common, valid case: 4.5-7x less a
record than fastjsonschema and 75-110x less than jsonschema, and it compiles a schema in
half a millisecond where fastjsonschema took 10 (bench/bench_libraries.py).
jsonschema stays the authority: it is imported only when the compiled validator refuses a
record, to decide and word the error, or when a schema can't be compiled. A test holds the
compiled validator to never pass what jsonschema refuses."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


class Schemas:
    """Validators per record type, loaded once from a repository's `schemas/` folder."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder if folder is not None and folder.is_dir() else None

    @property
    def present(self) -> bool:
        return self.folder is not None

    @lru_cache(maxsize=32)  # noqa: B019 - one Schemas per run
    def schema(self, record_type: str) -> dict[str, Any] | None:
        if self.folder is None or not record_type.replace("_", "").isalnum():
            return None
        path = self.folder / f"{record_type}.schema.json"
        if not path.is_file() or path.is_symlink():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else None

    @lru_cache(maxsize=32)  # noqa: B019 - one Schemas per run
    def fast(self, record_type: str) -> Callable[[Any], bool] | None:
        """The compiled validator's `is_valid`, or None where the schema can't be compiled."""
        schema = self.schema(record_type)
        if schema is None:
            return None
        try:
            import jsonschema_rs

            # Formats as jsonschema checks them by default (not at all), and no schema
            # fetched over the network: a `$ref` outside the file is jsonschema's to refuse.
            compiled = jsonschema_rs.validator_for(
                schema, validate_formats=False, retriever=_no_retrieval
            )
        except Exception:  # an uncompilable schema falls back to jsonschema
            return None
        is_valid: Callable[[Any], bool] = compiled.is_valid
        return is_valid

    @lru_cache(maxsize=32)  # noqa: B019 - one Schemas per run
    def validator(self, record_type: str) -> Validator | None:
        schema = self.schema(record_type)
        if schema is None:
            return None
        from jsonschema import validators

        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        v: Validator = cls(schema)
        return v

    def problems(self, record: dict[str, Any]) -> str | None:
        """None when valid (or no schema applies), else the most relevant error, worded."""
        rtype = record.get("type")
        if not isinstance(rtype, str):
            return "no `type` field, so no schema applies" if self.present else None
        fast = self.fast(rtype)
        if fast is not None:
            try:
                if fast(record):
                    return None
            except Exception:  # it raised (no record is known to make it): jsonschema decides
                pass
        v = self.validator(rtype)
        if v is None or v.is_valid(record):
            return None
        from jsonschema.exceptions import best_match

        err = best_match(v.iter_errors(record))
        if err is None:
            return None
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        msg = _json_words(err.message, err.instance)
        msg = msg if len(msg) <= 200 else msg[:200] + "…"
        return f"not valid against schemas/{rtype}.schema.json at {where}: {msg}"


def _json_words(message: str, instance: Any) -> str:
    """jsonschema's message with the value as the file writes it: JSON's `null`, `true` and
    `false`, not Python's `None`, `True` and `False` (which it shows by repr)."""
    if instance is None or isinstance(instance, bool):
        shown = repr(instance)
        if message.startswith(shown + " "):
            return json.dumps(instance) + message[len(shown) :]
    return message


def _no_retrieval(uri: str) -> Any:
    raise ValueError(f"roofbot does not fetch schemas: {uri}")
