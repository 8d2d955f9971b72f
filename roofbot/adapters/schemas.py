"""The repository's own JSON Schemas (`schemas/<type>.schema.json`), validated by
jsonschema, which also words the error a record is refused with."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofbot.adapters.tree import Tree, TreeError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


FOLDER = "schemas"
"""Where a repository keeps its schemas, from its root."""
MAX_SCHEMA_BYTES = 1 << 20


class Schemas:
    """Validators per record type, loaded once from a repository's `schemas/` folder: on disk
    (`folder`), or in a commit (`tree`: a pull request is judged by its base's schemas, read
    at the base's commit, whatever the workspace has checked out)."""

    def __init__(self, folder: Path | None, *, tree: Tree | None = None) -> None:
        self.folder = folder if folder is not None and folder.is_dir() else None
        self.tree = tree if tree is not None and tree.glob(f"{FOLDER}/*.schema.json") else None

    @property
    def present(self) -> bool:
        return self.folder is not None or self.tree is not None

    @lru_cache(maxsize=32)  # noqa: B019 - one Schemas per run
    def schema(self, record_type: str) -> dict[str, Any] | None:
        if not record_type.replace("_", "").isalnum():
            return None
        name = f"{record_type}.schema.json"
        if self.tree is not None:
            try:
                text = self.tree.read(f"{FOLDER}/{name}", MAX_SCHEMA_BYTES).decode("utf-8")
            except TreeError:
                return None
        elif self.folder is not None:
            path = self.folder / name
            if not path.is_file() or path.is_symlink():
                return None
            text = path.read_text(encoding="utf-8")
        else:
            return None
        data = json.loads(text)
        return data if isinstance(data, dict) else None

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
        v = self.validator(rtype)
        if v is None or v.is_valid(record):
            return None
        from jsonschema.exceptions import best_match

        err = best_match(v.iter_errors(record))
        if err is None:
            return None
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        msg = _json_words(err.message, err.instance)
        msg = msg if len(msg) <= 2000 else msg[:2000] + "…"  # whole: `check -v` shows it all
        return f"not valid against schemas/{rtype}.schema.json at {where}: {msg}"


def _json_words(message: str, instance: Any) -> str:
    """jsonschema's message with the value as the file writes it: JSON's `null`, `true` and
    `false`, not Python's `None`, `True` and `False` (which it shows by repr)."""
    if instance is None or isinstance(instance, bool):
        shown = repr(instance)
        if message.startswith(shown + " "):
            return json.dumps(instance) + message[len(shown) :]
    return message
