"""Shared test fixtures: the bundled example repository and the users' real corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from roofbot.adapters.repo import Repository
from roofbot.engine import run_check

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
REAL = Path(os.environ.get("ROOFBOT_RECORDS_REPO") or ROOT.parent / "shared" / "records-repo")
"""The users' real corpus: any copy of a records repository, named by ROOFBOT_RECORDS_REPO;
without it, ../shared/records-repo beside this checkout. Absent, its tests skip."""


@pytest.fixture(scope="session")
def fixtures_repo() -> Repository:
    return Repository.open(FIXTURES)


@pytest.fixture(scope="session")
def fixtures_report(fixtures_repo: Repository):  # type: ignore[no-untyped-def]
    return run_check(fixtures_repo)


@pytest.fixture(scope="session")
def real_repo() -> Repository:
    if not (REAL / "data" / "benchmarks").is_dir():
        pytest.skip(
            f"no records repository at {REAL} (set ROOFBOT_RECORDS_REPO to a copy of one); "
            "real-corpus tests skipped"
        )
    return Repository.open(REAL)


@pytest.fixture(scope="session")
def real_report(real_repo: Repository):  # type: ignore[no-untyped-def]
    return run_check(real_repo)


def by_id(report, rid: str):  # type: ignore[no-untyped-def]
    return next(r for r in report.records if r.id == rid)


def check(result, name: str):  # type: ignore[no-untyped-def]
    return next(c for c in result.checks if c.check.value == name)


def load(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text())
