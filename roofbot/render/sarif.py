"""SARIF 2.1.0 (`--format sarif`), for GitHub code scanning: one result per finding, rule ids
the check and trap ids, locations the record file and line. Validated against the OASIS schema
in tests/test_formats.py."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from roofbot import __version__
from roofbot.render.finding_rules import RULES
from roofbot.render.findings import Finding

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVEL_DEFAULT = {"record-error": "error", "unchecked": "note", "calibration": "error"}
_CHECKS = ("memory-roof", "batched-memory-roof", "compute-roof")


def _rule_json(rule_id: str, gotchas: Mapping[str, str | None]) -> dict[str, Any]:
    rule = RULES[rule_id]
    help_text = rule.help
    if gotchas.get(rule_id):
        help_text += f" The repository's own gotcha record: {gotchas[rule_id]}"
    level = _LEVEL_DEFAULT.get(rule_id, "error" if rule_id in _CHECKS else "note")
    kind = "check" if rule_id in _CHECKS else "trap" if rule_id not in _LEVEL_DEFAULT else "roofbot"
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.help},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["roofline", kind]},
    }


def _fingerprint(f: Finding) -> str:
    return hashlib.sha256(f"{f.rule}\0{f.record}\0{f.path}".encode()).hexdigest()[:32]


def _result(f: Finding, index: int) -> dict[str, Any]:
    text = f.message if not f.advice else f"{f.message}. To fix: {f.advice}."
    region: dict[str, Any] = {"startLine": max(1, f.line)}
    if f.column:
        region["startColumn"] = max(1, f.column)
    return {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": f.level,
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(f.path), "uriBaseId": "%SRCROOT%"},
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {"roofbotFinding/v1": _fingerprint(f)},
        "properties": {"record": f.record, "failsRun": f.fails},
    }


def sarif_log(
    items: Sequence[Finding], gotchas: Mapping[str, str | None] | None = None, ok: bool = True
) -> dict[str, Any]:
    gotchas = gotchas or {}
    rule_ids = list(RULES)
    index = {r: i for i, r in enumerate(rule_ids)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "roofbot",
                        "semanticVersion": __version__,
                        "version": __version__,
                        "rules": [_rule_json(r, gotchas) for r in rule_ids],
                    }
                },
                "invocations": [
                    {"executionSuccessful": True, "properties": {"ok": ok}},
                ],
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.rule]) for f in items],
            }
        ],
    }


def dumps(
    items: Sequence[Finding], gotchas: Mapping[str, str | None] | None = None, ok: bool = True
) -> str:
    return json.dumps(sarif_log(items, gotchas, ok), indent=2, ensure_ascii=False) + "\n"
