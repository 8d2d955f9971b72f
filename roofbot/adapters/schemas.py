"""The repository's own JSON Schemas (`schemas/<type>.schema.json`), applied with jsonschema."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator


class Schemas:
    """Validators per record type, loaded once from a repository's `schemas/` folder."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder if folder is not None and folder.is_dir() else None

    @property
    def present(self) -> bool:
        return self.folder is not None

    @lru_cache(maxsize=32)  # noqa: B019 - one Schemas per run
    def fast(self, record_type: str) -> Callable[[Any], Any] | None:
        """A compiled validator (fastjsonschema) for the common, valid case: 20x faster than
        jsonschema on the sweep (bench/bench_sweep.py). jsonschema stays the authority: it
        words the errors, and any schema fastjsonschema can't compile is left to it."""
        v = self.validator(record_type)
        if v is None:
            return None
        try:
            import fastjsonschema

            schema = v.schema
            if not isinstance(schema, Mapping):
                return None
            compiled: Callable[[Any], Any] = fastjsonschema.compile(dict(schema))
            return compiled
        except Exception:
            return None

    @lru_cache(maxsize=32)  # noqa: B019 - one Schemas per run
    def validator(self, record_type: str) -> Validator | None:
        if self.folder is None or not record_type.replace("_", "").isalnum():
            return None
        path = self.folder / f"{record_type}.schema.json"
        if not path.is_file():
            return None
        schema = json.loads(path.read_text(encoding="utf-8"))
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        return cls(schema)

    def problems(self, record: dict[str, Any]) -> str | None:
        """None when valid (or no schema applies), else the most relevant error, worded."""
        rtype = record.get("type")
        if not isinstance(rtype, str):
            return "no `type` field, so no schema applies" if self.present else None
        v = self.validator(rtype)
        if v is None:
            return None
        fast = self.fast(rtype)
        if fast is not None:
            try:
                fast(record)
                return None
            except Exception:
                pass
        if v.is_valid(record):  # the common case, without building error trees
            return None
        err = best_match(v.iter_errors(record))
        if err is None:
            return None
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        msg = err.message if len(err.message) <= 200 else err.message[:200] + "…"
        return f"not valid against schemas/{rtype}.schema.json at {where}: {msg}"
