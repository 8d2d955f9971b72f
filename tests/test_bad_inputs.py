"""A stranger's pull request: every broken, hostile or huge record file gets an `error` with a
clear message, and the run goes on for the other files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofbot.adapters.repo import Repository
from roofbot.core.results import Verdict
from roofbot.engine import run_check
from tests.conftest import FIXTURES

BROKEN = FIXTURES / "broken"

EXPECTED = {  # file stem -> words the error message must contain
    "truncated": "invalid JSON at line",
    "array-not-object": "not an object",
    "id-stem-mismatch": "differs from the file name",
    "value-as-string": "schemas/benchmark.schema.json",
    "missing-required-fields": "schemas/benchmark.schema.json",
    "nan-value": "NaN is not a JSON number",
    "infinity-value": "Infinity is not a JSON number",
    "overflow-1e309": "overflows a double",
    "huge-integer": "digits is not a measurement",
    "negative-value": "not a finite, non-negative number",
    "duplicate-keys": "appears twice",
    "utf8-bom": "byte-order mark",
    "latin1-bytes": "not UTF-8",
    "binary-nul-bytes": "binary",
    "empty": "invalid JSON",
    "lone-surrogate": "half of a surrogate pair",
    "name-not-utf8-\\xff": "the file name is not UTF-8",
    "value-null": "schemas/benchmark.schema.json",
    "deep-nesting": "nested too deeply",
    "huge-50mb": "MiB limit",
    "passwd-link": "symbolic link",
    "dir-link": "symbolic link",
}


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(FIXTURES, root, dirs_exist_ok=True)
    bench = root / "data" / "benchmarks"
    for f in BROKEN.glob("*.json"):
        shutil.copy(f, bench / f.name)
    big = tmp_path_factory.mktemp("big")
    subprocess.run(
        [sys.executable, str(BROKEN / "make_big.py"), str(big)], check=True, capture_output=True
    )
    for f in big.glob("*.json"):
        shutil.move(str(f), bench / f.name)
    os.symlink("/etc/passwd", bench / "passwd-link.json")
    # a file name that isn't UTF-8 (byte 0xff): listed with a surrogate escape, shown as \xff
    shutil.copy(BROKEN / "truncated.json", os.fsencode(bench) + b"/name-not-utf8-\xff.json")
    os.symlink("../../..", bench / "dir-link.json")
    return root


def test_every_bad_file_is_an_error_and_the_rest_are_checked(hostile_repo: Path) -> None:
    report = run_check(Repository.open(hostile_repo))
    results = {Path(r.path).stem: r for r in report.records}
    for stem, words in EXPECTED.items():
        r = results[stem]
        assert r.verdict is Verdict.ERROR, (stem, r.verdict)
        assert words in r.messages[0].text, (stem, r.messages[0].text)
    good = [r for r in report.records if r.path.startswith("data/benchmarks/mpt7b")]
    assert good and all(r.verdict in (Verdict.PASS, Verdict.SKIPPED) for r in good)
    assert report.calibration.ok  # the instrument is unaffected by its neighbours
    assert not report.ok  # errors are in fail_on


def test_injection_record_is_checked_not_errored(hostile_repo: Path) -> None:
    report = run_check(Repository.open(hostile_repo))
    r = next(r for r in report.records if r.path.endswith("markdown-injection.json"))
    assert r.verdict is not Verdict.ERROR
    assert any("does not resolve" in m.text for m in r.messages)  # dangling format_id, on its input


def test_nothing_outside_the_repository_is_read(hostile_repo: Path) -> None:
    report = run_check(Repository.open(hostile_repo))
    text = repr(report)
    assert "root:x:0:0" not in text


@pytest.mark.parametrize("fmt", ["json", "text", "markdown", "sarif", "github"])
def test_cli_never_tracebacks_on_hostile_files(hostile_repo: Path, fmt: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(hostile_repo), "--format", fmt],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 1, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    assert "lone-surrogate" in out.stdout  # the file is reported, as an error
    assert "name-not-utf8-\\xff" in out.stdout.replace("\\\\", "\\")  # JSON doubles a \\
    if fmt == "json":
        assert '"verdict": "error"' in out.stdout


def test_a_link_is_not_a_file_in_either_tree(hostile_repo: Path) -> None:
    """FolderTree agrees with GitTree: a link is not there (as `read` refuses it), so no
    sibling or calibration record is looked for through one."""
    tree = Repository.open(hostile_repo).tree
    assert not tree.exists("data/benchmarks/passwd-link.json")
    assert not tree.exists("data/benchmarks/dir-link.json")
    assert tree.exists("data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json")


def test_paths_outside_the_repository_are_refused(hostile_repo: Path) -> None:
    report = run_check(Repository.open(hostile_repo), ["../../etc/passwd", "/etc/passwd"])
    assert all(
        r.verdict is Verdict.ERROR and "outside the repository" in r.messages[0].text
        for r in report.records
    )

    nul = run_check(Repository.open(hostile_repo), ["data/benchmarks/a\x00.json"])
    assert "NUL byte" in nul.records[0].messages[0].text


@pytest.mark.parametrize(
    ("expect", "limit", "size"), [(101, 201, 100), (51, 201, 100), (51, 60, 60)]
)
def test_a_file_is_read_to_its_end_or_the_limit(
    tmp_path: Path, expect: int, limit: int, size: int
) -> None:
    """The first read asks for the size lstat saw (plus one); a file that grew since (an
    `expect` below its size) is read on, never past the limit."""
    from roofbot.adapters.tree import _read_upto

    (tmp_path / "f").write_bytes(b"x" * 100)
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    try:
        assert len(_read_upto(fd, expect, limit)) == size
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    "yaml_text",
    [
        "a: &a [1,1,1,1,1,1,1,1,1]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n"
            for i in range(8)
        ),
        "pins: !!python/object/apply:os.system ['echo pwned']\n",
        "records: ['../../etc/*']\n",
        "records: ['/etc/passwd']\n",
        "calibration: {records: [{id: x, check: nonsense, percent: 1}]}\n",
        "unknown_key: 1\n",
    ],
)
def test_hostile_config_is_a_usage_error(tmp_path: Path, yaml_text: str) -> None:
    shutil.copytree(FIXTURES / "data", tmp_path / "data")
    (tmp_path / ".roofbot.yml").write_text(yaml_text)
    out = subprocess.run(
        [sys.executable, "-m", "roofbot", "check", "--repo", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr and "pwned" not in out.stdout


def test_a_file_read_for_its_line_numbers_is_none_where_it_cannot_be_read(tmp_path: Path) -> None:
    """The report's line numbers come from `read_or_none`: a file that can't be read (gone,
    a link, a folder, over the limit, an escaping path) shows no line; nothing raises."""
    from roofbot.adapters.tree import FolderTree, read_or_none

    (tmp_path / "ok.json").write_bytes(b'{"id": "ok"}')
    (tmp_path / "big.json").write_bytes(b"x" * 100)
    (tmp_path / "link.json").symlink_to(tmp_path / "ok.json")
    (tmp_path / "folder.json").mkdir()
    tree = FolderTree(tmp_path)
    assert read_or_none(tree, "ok.json", 1000) == b'{"id": "ok"}'
    for bad in ("gone.json", "link.json", "folder.json", "big.json", "../ok.json", "a\x00b"):
        assert read_or_none(tree, bad, 50) is None, bad
