"""The result cache (roofbot/adapters/cache.py, roofbot/cached.py). A warm run's report is the
cold run's, byte for byte; each thing a result depends on, changed, checks the record again;
a broken, foreign or hostile cache costs speed, never a result."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from roofbot.adapters import cache as cache_module
from roofbot.adapters.cache import CacheSpec
from roofbot.adapters.repo import Repository
from roofbot.core.results import Verdict
from roofbot.engine import CacheStats, run_check
from roofbot.render import json_report
from tests.conftest import FIXTURES, REAL

MPT_BS1 = "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json"
MPT_PER_USER = "data/benchmarks/mpt7b-a100-bs64-per-user-decode-tps.json"
MPT_AGGREGATE = "data/benchmarks/mpt7b-a100-bs64-aggregate-output-tps.json"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("broken"))
    return root


def sweep(
    root: Path, cache_dir: Path | None, paths: list[str] | None = None, jobs: int = 1
) -> tuple[str, CacheStats]:
    """The JSON report of one run, and what the cache did in it."""
    repository = Repository.open(root)
    spec = CacheSpec.for_repo(repository, cache_dir, root) if cache_dir else None
    stats = CacheStats()
    report = run_check(repository, paths, cache=spec, stats=stats, jobs=jobs)
    return json_report.dumps(report), stats


def add_copies(repo: Path, n: int = 120) -> None:
    """n more records, copies of the MPT-7B batch-1 record: --jobs starts workers from 100."""
    template = json.loads((repo / MPT_BS1).read_text())
    for i in range(n):
        rid = f"copy-{i:03d}-mpt7b-a100-bs1-per-user-decode-tps"
        (repo / f"data/benchmarks/{rid}.json").write_text(
            json.dumps({**template, "id": rid, "value": 40 + i}, indent=2)
        )


def n_records(root: Path) -> int:
    return len(list((root / "data/benchmarks").glob("*.json")))


def edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))


def test_a_warm_run_is_the_cold_run_byte_for_byte(repo: Path, tmp_path: Path) -> None:
    plain, _ = sweep(repo, None)
    cold, first = sweep(repo, tmp_path / "cache")
    warm, second = sweep(repo, tmp_path / "cache")
    n = n_records(repo)
    assert (first.hits, first.misses) == (0, n)
    assert (second.hits, second.misses) == (n, 0)
    assert cold == plain and warm == plain
    assert first.warnings == [] and second.warnings == []


def test_the_real_corpus_warm_is_the_real_corpus_cold(
    real_repo: Repository, tmp_path: Path
) -> None:
    plain, _ = sweep(REAL, None)
    sweep(REAL, tmp_path / "cache")
    warm, stats = sweep(REAL, tmp_path / "cache")
    assert warm == plain
    errors = sum(r["verdict"] == "error" for r in json.loads(plain)["records"])
    assert errors > 0  # the value-null placeholders: kept like any result
    assert (stats.hits, stats.misses) == (n_records(REAL), 0)


def test_a_files_error_is_kept_and_a_changed_file_is_checked_again(
    repo: Path, tmp_path: Path
) -> None:
    broken = repo / "data/benchmarks/broken-record.json"
    broken.write_text('{"id": "broken-record", "type": "benchmark"')
    plain, _ = sweep(repo, None)
    sweep(repo, tmp_path / "cache")
    warm, stats = sweep(repo, tmp_path / "cache")
    assert (stats.hits, stats.misses) == (n_records(repo), 0) and warm == plain
    broken.write_text('{"id": "broken-record", "type": "benchmark", "value": null}')
    again, stats = sweep(repo, tmp_path / "cache")
    assert (stats.hits, stats.misses) == (n_records(repo) - 1, 1)
    assert again == sweep(repo, None)[0] != plain


def test_a_warm_run_with_schema_errors_never_imports_jsonschema(repo: Path, tmp_path: Path) -> None:
    # jsonschema words a schema error (60 ms to import, and a validator to build); a warm run
    # finds the error kept. That it is the installed jsonschema's wording is in every row's
    # fingerprint, found without importing it.
    edit(repo / MPT_BS1, value=None)
    run = (
        "import sys\nfrom roofbot.cli import main\n"
        f"code = main(['check', '--repo', {str(repo)!r}, '--cache-dir', "
        f"{str(tmp_path / 'cache')!r}, '--jobs', '1'])\n"
        "print(code, 'jsonschema' in sys.modules)"
    )

    def imports() -> str:
        out = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True)
        return out.stdout.strip().splitlines()[-1]

    assert imports() == "1 True"  # cold: the error is worded
    assert imports() == "1 False"  # warm: it is read back
    assert "jsonschema [(" in cache_module._validator_version()


def test_an_untouched_file_hits_on_its_signature_without_being_read(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache_module, "RACY_NS", 0)  # the files were written just now
    sweep(repo, tmp_path / "cache")
    repository = Repository.open(repo)
    reads: list[str] = []
    read = repository.tree.read
    repository.tree.read = lambda path, limit: reads.append(path) or read(path, limit)  # type: ignore[method-assign]
    stats = CacheStats()
    spec = CacheSpec.for_repo(repository, tmp_path / "cache", repo)
    run_check(repository, cache=spec, stats=stats, calibration=False)
    assert stats.hits == n_records(repo)
    assert not [p for p in reads if p.startswith("data/benchmarks/")]


def test_a_touched_but_unchanged_file_is_read_and_still_hits(repo: Path, tmp_path: Path) -> None:
    sweep(repo, tmp_path / "cache")
    for p in (repo / "data/benchmarks").glob("*.json"):  # a checkout rewrites every file
        p.write_bytes(p.read_bytes())
    _, stats = sweep(repo, tmp_path / "cache")
    assert (stats.hits, stats.misses) == (n_records(repo), 0)


def _checked_again(stats: CacheStats, expected: int) -> None:
    assert (stats.misses, stats.hits) == (expected, N_FIXTURES - expected)


N_FIXTURES = len(list((FIXTURES / "data/benchmarks").glob("*.json")))
NAMERS_OF_BS1 = 2
"""The fixtures' two batch-64 MPT-7B records (per-user and aggregate) name
mpt7b-a100-bs1-per-user-decode-tps: their checks looked it up, so a change to it checks them
again too."""


def test_a_changed_record_is_checked_again(repo: Path, tmp_path: Path) -> None:
    sweep(repo, tmp_path / "cache")
    edit(repo / MPT_BS1, value=200.0)  # over the 111.1 tok/s roof now
    warm, stats = sweep(repo, tmp_path / "cache")
    _checked_again(stats, 1 + NAMERS_OF_BS1)
    assert warm == sweep(repo, None)[0]
    record = next(r for r in json.loads(warm)["records"] if r["path"] == MPT_BS1)
    assert record["verdict"] == "violation"


def test_a_same_size_rewrite_with_the_same_times_is_still_seen(repo: Path, tmp_path: Path) -> None:
    """A file written within the file system's clock tick keeps its times: a fresh file's
    row is checked by content, so a same-size edit that kept the times is still caught."""
    path = repo / MPT_BS1
    sweep(repo, tmp_path / "cache")
    st = path.stat()
    text = path.read_text()
    assert '"value": 57.6' in text
    path.write_text(text.replace('"value": 57.6', '"value": 97.6'))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size
    warm, stats = sweep(repo, tmp_path / "cache")
    _checked_again(stats, 1 + NAMERS_OF_BS1)
    assert warm == sweep(repo, None)[0]


def test_a_changed_sibling_checks_the_record_that_named_it_again(
    repo: Path, tmp_path: Path
) -> None:
    """The per-user bs64 record names its aggregate sibling: doubling the aggregate's value
    makes the pair disagree, and the per-user record (served from the cache otherwise) must
    now show the per-user-vs-aggregate trap."""
    cold, _ = sweep(repo, tmp_path / "cache")
    edit(repo / MPT_AGGREGATE, value=1600.0)
    warm, stats = sweep(repo, tmp_path / "cache")
    assert warm == sweep(repo, None)[0]
    before = next(r for r in json.loads(cold)["records"] if r["path"] == MPT_PER_USER)
    after = next(r for r in json.loads(warm)["records"] if r["path"] == MPT_PER_USER)
    assert before["traps"] == [] and after["traps"] == ["per-user-vs-aggregate"]
    assert stats.misses >= 2  # the aggregate itself and the per-user record that named it


def test_a_sibling_that_disappears_checks_the_record_that_named_it_again(
    repo: Path, tmp_path: Path
) -> None:
    sweep(repo, tmp_path / "cache")
    (repo / MPT_AGGREGATE).unlink()
    warm, stats = sweep(repo, tmp_path / "cache")
    assert warm == sweep(repo, None)[0]
    assert stats.misses >= 1 and stats.hits < N_FIXTURES - 1


@pytest.mark.parametrize(
    "change",
    [
        "catalogue",  # an accelerator's bandwidth
        "config",  # .roofbot.yml
        "schema",  # schemas/benchmark.schema.json
        "roofbot",  # roofbot's own code
    ],
)
def test_a_change_to_what_every_result_depends_on_checks_every_record(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    sweep(repo, tmp_path / "cache")
    if change == "catalogue":
        part = repo / "data/accelerators/nvidia-a100-40gb-sxm4.json"
        edit(part, memory_bandwidth_gbps=800)
    elif change == "config":
        cfg = repo / ".roofbot.yml"
        cfg.write_text(cfg.read_text().replace("tolerance_pp: 0.1", "tolerance_pp: 0.2"))
    elif change == "schema":
        schema = repo / "schemas/benchmark.schema.json"
        schema.write_text(schema.read_text() + "\n")
    else:
        monkeypatch.setattr(cache_module, "code_digest", lambda: b"another roofbot")
    warm, stats = sweep(repo, tmp_path / "cache")
    assert (stats.hits, stats.misses) == (0, n_records(repo))
    assert warm == sweep(repo, None)[0]


def test_a_garbage_cache_file_costs_speed_not_results(repo: Path, tmp_path: Path) -> None:
    repository = Repository.open(repo)
    spec = CacheSpec.for_repo(repository, tmp_path / "cache", repo)
    spec.db.parent.mkdir(parents=True)
    spec.db.write_bytes(os.urandom(8192))
    warm, stats = sweep(repo, tmp_path / "cache")
    assert warm == sweep(repo, None)[0]
    assert stats.warnings and "can't be" in stats.warnings[0]


def test_a_cache_folder_that_cant_exist_costs_speed_not_results(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    report, stats = sweep(repo, tmp_path / "a-file" / "cache")
    assert report == sweep(repo, None)[0]
    assert stats.warnings and "checking without it" in stats.warnings[0]


class _Payload:
    """A pickle that would run a command when loaded by an unrestricted unpickler."""

    def __init__(self, sentinel: Path) -> None:
        self.sentinel = sentinel

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, (f"touch {self.sentinel}",))


@pytest.mark.parametrize("column", ["result", "deps"])
def test_a_planted_row_is_never_executed(repo: Path, tmp_path: Path, column: str) -> None:
    sweep(repo, tmp_path / "cache")
    sentinel = tmp_path / "pwned"
    spec = CacheSpec.for_repo(Repository.open(repo), tmp_path / "cache", repo)
    with sqlite3.connect(spec.db) as db:
        db.execute(f"UPDATE results SET {column} = ?", (pickle.dumps(_Payload(sentinel)),))
    warm, stats = sweep(repo, tmp_path / "cache")
    assert not sentinel.exists()
    assert stats.hits == 0 and stats.misses == n_records(repo)  # every row refused
    assert warm == sweep(repo, None)[0]


def test_a_full_sweep_forgets_records_that_are_gone(repo: Path, tmp_path: Path) -> None:
    sweep(repo, tmp_path / "cache")
    (repo / MPT_BS1).unlink()
    sweep(repo, tmp_path / "cache")
    spec = CacheSpec.for_repo(Repository.open(repo), tmp_path / "cache", repo)
    with sqlite3.connect(spec.db) as db:
        paths = {p for (p,) in db.execute("SELECT path FROM results")}
    assert MPT_BS1 not in paths and len(paths) == n_records(repo)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_full_sweep_forgets_the_first_a_middle_and_the_last_record(
    repo: Path, tmp_path: Path, jobs: int
) -> None:
    # On one process the gone rows are the ones the sweep's ordered scan stepped over, read
    # on past its last path and before its first; on workers, every key is read instead.
    add_copies(repo)
    sweep(repo, tmp_path / "cache", jobs=jobs)
    paths = sorted((repo / "data/benchmarks").glob("*.json"))
    for p in (paths[0], paths[len(paths) // 2], paths[-1]):
        p.unlink()
    _, stats = sweep(repo, tmp_path / "cache", jobs=jobs)
    assert stats.misses == 0 and stats.hits == n_records(repo)
    spec = CacheSpec.for_repo(Repository.open(repo), tmp_path / "cache", repo)
    with sqlite3.connect(spec.db) as db:
        kept = {p for (p,) in db.execute("SELECT path FROM results")}
    assert kept == {p.relative_to(repo).as_posix() for p in paths[1:-1]} - {
        paths[len(paths) // 2].relative_to(repo).as_posix()
    }


def test_a_scan_asked_out_of_order_leaves_the_prune_to_read_every_key(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "t.sqlite3")
    db.execute("CREATE TABLE results (path TEXT PRIMARY KEY, fingerprint BLOB, x BLOB)")
    db.executemany("INSERT INTO results VALUES (?, ?, ?)", [(p, b"f", b"") for p in "abcdef"])
    db.commit()
    scan = cache_module._Scan(db, b"f", "x")
    assert scan.get("b") == ("b", b"f", b"") and scan.get("d") is not None
    assert scan.unasked() == ["a", "c", "e", "f"]  # before the first, stepped over, after
    scan = cache_module._Scan(db, b"f", "x")
    assert scan.get("c") is not None and scan.get("b") is cache_module._ASK
    assert scan.unasked() is None


def test_a_partial_run_keeps_the_other_rows(repo: Path, tmp_path: Path) -> None:
    sweep(repo, tmp_path / "cache")
    sweep(repo, tmp_path / "cache", paths=[MPT_BS1])
    _, stats = sweep(repo, tmp_path / "cache")
    assert stats.hits == n_records(repo)


def test_parallel_workers_share_the_cache(repo: Path, tmp_path: Path) -> None:
    add_copies(repo)
    plain, _ = sweep(repo, None)
    cold, first = sweep(repo, tmp_path / "cache", jobs=2)
    warm, second = sweep(repo, tmp_path / "cache", jobs=2)
    n = n_records(repo)
    assert (first.hits, first.misses) == (0, n)
    assert (second.hits, second.misses) == (n, 0)
    assert cold == plain and warm == plain


def test_the_cli_uses_the_cache_and_says_so(repo: Path, tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "roofbot", "check", "--repo", str(repo), "-v", *args],
            capture_output=True,
            text=True,
            check=False,
        )

    folder = tmp_path / "cli-cache"
    first = run("--cache-dir", str(folder))
    second = run("--cache-dir", str(folder))
    n = n_records(repo)
    assert f"0 result(s) from the cache, {n} checked" in first.stderr
    assert f"{n} result(s) from the cache, 0 checked" in second.stderr
    assert first.stdout == second.stdout and first.returncode == second.returncode
    off = run("--no-cache", "--cache-dir", str(tmp_path / "unused"))
    assert off.stdout == first.stdout and not (tmp_path / "unused").exists()
    assert "from the cache" not in off.stderr


def json_sweep(root: Path, cache_dir: Path | None, jobs: int = 1) -> tuple[str, CacheStats]:
    """`roofbot check --format json`, in this process: the report text and the cache's work."""
    import io

    from roofbot.cli import _stream_json

    repository = Repository.open(root)
    spec = CacheSpec.for_repo(repository, cache_dir, root) if cache_dir else None
    stats = CacheStats()
    out = io.StringIO()
    _stream_json(repository, None, True, jobs, None, spec, stats, out)
    return out.getvalue(), stats


def test_a_warm_json_sweep_writes_the_kept_report_json(repo: Path, tmp_path: Path) -> None:
    """The second `--format json` run writes each record's kept JSON without building its
    result; the report is byte for byte the cold one (calibration included)."""
    plain, _ = json_sweep(repo, None)
    cold, first = json_sweep(repo, tmp_path / "cache")
    warm, second = json_sweep(repo, tmp_path / "cache")
    assert cold == plain and warm == plain
    assert (first.misses, second.hits) == (N_FIXTURES, N_FIXTURES)
    assert json.loads(warm)["calibration"]["ok"] is True


@pytest.mark.parametrize("form_name", ["json", "text"])
def test_kept_hits_build_no_result(repo: Path, tmp_path: Path, form_name: str) -> None:
    """A warm sweep in either kept form returns each record as its kept bytes, the result
    left unread, except for the records asked for whole (the calibration set)."""
    from roofbot.engine import iter_kept
    from roofbot.links import gotcha_paths
    from roofbot.render.json_report import PreRendered
    from roofbot.render.kept import JsonForm, KeptForm, TextForm

    repository = Repository.open(repo)
    catalogue = repository.catalogue()
    cfg = repository.config
    form: KeptForm = (
        JsonForm(gotcha_paths(cfg, catalogue))
        if form_name == "json"
        else TextForm(cfg.fail_on, cfg.deprecated_fail)
    )
    spec = CacheSpec.for_repo(repository, tmp_path / "cache", repo)
    wanted = frozenset({"mpt7b-a100-bs1-per-user-decode-tps"})
    for _ in range(2):  # the first run fills the cache, the second reads it
        items = list(iter_kept(repository, catalogue, repository.record_paths(), form, wanted,
                               cache=spec))  # fmt: skip
    assert all(isinstance(i, PreRendered) for i in items)
    whole = {r.id: r for r in run_check(repository, calibration=False).records}
    for item in items:  # what the header counts, and the result when it is asked for
        assert isinstance(item, PreRendered)
        assert (item.result is not None) == (item.id in wanted)
        if item.result is not None:
            assert item.result == whole[item.id]
        result = whole[item.id]
        assert (item.verdict, item.deprecated) == (result.verdict, result.deprecated)
        assert (item.token_rate, item.checked) == (result.token_rate, result.checked)
        raw = (repo / result.path).read_bytes()
        assert form.read_back(form.render(result, lambda raw=raw: raw)) == (
            result.verdict, result.deprecated, result.checked, item.text
        )  # fmt: skip


def test_a_json_sweep_after_a_text_sweep_adds_the_json(repo: Path, tmp_path: Path) -> None:
    sweep(repo, tmp_path / "cache")  # rows without report JSON
    plain, _ = json_sweep(repo, None)
    second, _ = json_sweep(repo, tmp_path / "cache")  # unpickles, renders, keeps the JSON
    third, stats = json_sweep(repo, tmp_path / "cache")
    assert second == plain and third == plain and stats.hits == N_FIXTURES


def _open_a_new_cache(spec: CacheSpec, errors: Any) -> None:
    try:
        spec.open().abandon()
    except cache_module.CacheError as e:
        errors.put(str(e))


def test_two_processes_opening_a_new_cache_at_once_both_use_it(tmp_path: Path) -> None:
    # Switching a new file to WAL, SQLite answers "database is locked" at once, without its
    # busy wait, to one of two connections racing (about 40% of tries): that process then
    # checked its whole share without the cache, a worker or a second run alike.
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    for i in range(30):
        spec = CacheSpec(tmp_path / f"race-{i}" / "c.sqlite3", b"f")
        both = [ctx.Process(target=_open_a_new_cache, args=(spec, errors)) for _ in range(2)]
        for proc in both:
            proc.start()
        for proc in both:
            proc.join()
            assert proc.exitcode == 0
    assert errors.empty()


def test_workers_share_a_new_cache_without_a_warning(repo: Path, tmp_path: Path) -> None:
    add_copies(repo)
    _, stats = json_sweep(repo, tmp_path / "cache", jobs=2)
    assert stats.workers == 2 and stats.warnings == []


def test_parallel_json_sweeps_share_the_kept_json(repo: Path, tmp_path: Path) -> None:
    add_copies(repo)
    plain, _ = json_sweep(repo, None)
    cold, _ = json_sweep(repo, tmp_path / "cache", jobs=2)
    warm, stats = json_sweep(repo, tmp_path / "cache", jobs=2)
    assert cold == plain and warm == plain and stats.misses == 0


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("json", 12),
        ("json", "    {text, not bytes}"),
        ("json", b"\xff\xfe not json"),
        ("json", b'    {\n      "verdict": "pass"\xff}'),
        ("json", b'    {\n      "id": "no verdict, no binding"\n    }'),
        ("json", b'    {\n      "verdict": "no-such",\n      "deprecated": false,\n    }'),
        (  # the summary fields all there, and a byte that isn't UTF-8
            "json",
            b'    {\n      "id": "x",\n      "path": "p",\n      "status": null,\n'
            b'      "verdict": "pass",\n      "deprecated": false,\n      "binding": null\xff\n    }',
        ),
        # the kept object after its head line (the eighth performance pass): a head that
        # reads back, and what follows isn't a whole record object, or isn't UTF-8
        ("json", b'pass 0 0\n    {\n      "id": "x"\xff\n    }'),
        ("json", b'pass 0 0\n    {\n      "inputs": {\n        "a": 1\n      }'),  # cut off
        ("json", b"pass 0 0\nfine so far"),  # the text form's lines
        ("json", b"pass 0 0\n"),
        ("lines", b"pass 0 0\n"),
        ("lines", b"pass 0 0\nfine so far \xff"),
        ("lines", b"no-such-verdict 0 0\nx"),
        ("sig", None),
        ("deps", "not bytes"),
        ("result", b"garbage"),
    ],
)
def test_a_garbled_row_is_a_miss_in_either_format(
    repo: Path, tmp_path: Path, column: str, value: object
) -> None:
    """A cache is a file anyone on the machine may have edited. A value of the wrong type is
    refused by SQLite (a STRICT table) or by `row`; a value roofbot could not have written
    makes the row a miss, or (report JSON whose header fields can't be read back) is
    written again. The reports stay the cold ones, and nothing crashes."""
    plain_json, _ = json_sweep(repo, None)
    plain_report, _ = sweep(repo, None)
    plain_text = text_of_the_whole_report(repo)
    json_sweep(repo, tmp_path / "cache")
    text_sweep(repo, tmp_path / "cache")  # the rows hold both kept forms
    spec = CacheSpec.for_repo(Repository.open(repo), tmp_path / "cache", repo)
    with sqlite3.connect(spec.db) as db:
        try:
            db.execute(f"UPDATE results SET {column} = ?", (value,))
        except sqlite3.IntegrityError:  # "cannot store TEXT value in BLOB column"
            assert cache_module._STRICT
    assert json_sweep(repo, tmp_path / "cache")[0] == plain_json
    assert text_sweep(repo, tmp_path / "cache")[0] == plain_text
    assert sweep(repo, tmp_path / "cache")[0] == plain_report


def test_the_header_fields_read_back_from_each_kept_json(
    fixtures_repo: Repository,
) -> None:
    """A warm JSON sweep counts its header from the line kept above the record's object and
    writes the object: every fixture record's verdict, deprecated and checked read back as
    the result has them, with the object `record_text` writes; bytes no form wrote, or
    another form's, read back as nothing."""
    from roofbot.links import gotcha_paths
    from roofbot.render.json_text import record_text
    from roofbot.render.kept import JsonForm, TextForm

    gotchas = gotcha_paths(fixtures_repo.config, fixtures_repo.catalogue())
    form = JsonForm(gotchas)
    cfg = fixtures_repo.config
    lines = TextForm(cfg.fail_on, cfg.deprecated_fail)
    results = run_check(fixtures_repo, calibration=False).records
    assert {r.checked for r in results} == {True, False}
    assert any(r.deprecated for r in results)
    for r in results:
        kept = form.render(r, lambda: None)
        printed = record_text(r, gotchas).encode("utf-8")
        assert form.read_back(kept) == (r.verdict, r.deprecated, r.checked, printed), r.id
        assert form.read_back(printed) is None  # no head line
        assert form.read_back(kept[:-1]) is None  # not the whole object
        assert form.read_back(lines.render(r, lambda: None)) is None, r.id
    assert form.read_back(b"") is None


def text_sweep(
    root: Path, cache_dir: Path | None, jobs: int = 1, *flags: str
) -> tuple[str, CacheStats]:
    """`roofbot check` in the text format, in this process; `flags`: quiet, verbose, color."""
    import io

    from roofbot.cli import _stream_text

    repository = Repository.open(root)
    spec = CacheSpec.for_repo(repository, cache_dir, root) if cache_dir else None
    stats = CacheStats()
    out = io.StringIO()
    _stream_text(repository, None, True, jobs, None, spec, stats,
                 "color" in flags, "quiet" in flags, "verbose" in flags, out)  # fmt: skip
    return out.getvalue(), stats


def text_of_the_whole_report(root: Path, *flags: str) -> str:
    """The text report as it is rendered from a report of every result."""
    from roofbot.cli import _reader
    from roofbot.render.findings import by_record, findings
    from roofbot.render.text import render_text

    repository = Repository.open(root)
    report = run_check(repository)
    found = by_record(findings(report, _reader(repository)))
    return render_text(report, "color" in flags, "verbose" in flags, "quiet" in flags, found)


@pytest.mark.parametrize("flags", [(), ("quiet",), ("verbose",), ("color",), ("quiet", "color")])
def test_the_streamed_text_report_is_the_whole_reports_text(
    repo: Path, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """The default format streams each record into its lines, from the kept lines when the
    cache has them: cold, warm and on two workers, the text is the one rendered from a
    report of every result."""
    add_copies(repo)  # enough records for --jobs 2 to start workers
    whole = text_of_the_whole_report(repo, *flags)
    assert "violation" in whole and "NOT OK" in whole
    assert text_sweep(repo, None, 1, *flags)[0] == whole
    assert text_sweep(repo, None, 2, *flags)[0] == whole
    cold, first = text_sweep(repo, tmp_path / "cache", 1, *flags)
    warm, second = text_sweep(repo, tmp_path / "cache", 1, *flags)
    two, _ = text_sweep(repo, tmp_path / "cache", 2, *flags)
    assert cold == whole and warm == whole and two == whole
    assert first.misses == n_records(repo) and second.hits == n_records(repo)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_the_real_corpus_warm_is_the_real_corpus_cold_in_each_streamed_format(
    real_repo: Repository, tmp_path: Path, fmt: str
) -> None:
    """Both streamed formats, cold and warm, print what the whole report renders to.
    (`real_repo` skips where the users' corpus is absent.)"""
    if fmt == "json":
        from roofbot.links import gotcha_paths

        gotchas = gotcha_paths(real_repo.config, real_repo.catalogue())
        stream, whole = json_sweep, json_report.dumps(run_check(real_repo), gotchas)
    else:
        stream, whole = text_sweep, text_of_the_whole_report(REAL)
    assert stream(REAL, tmp_path / "cache")[0] == whole
    warm, stats = stream(REAL, tmp_path / "cache")
    assert warm == whole and stats.hits > 0


def test_the_broken_files_stream_as_the_whole_report_renders_them(
    repo: Path, tmp_path: Path
) -> None:
    """A record checked in the sweep (no cache, or a miss) is rendered with the bytes its
    check read, on this process or a worker's, errors too (the cache keeps no error): both
    streamed formats still print the whole report's rendering of the hostile fixtures."""
    from roofbot.links import gotcha_paths

    for bad in (FIXTURES / "broken").glob("*.json"):
        shutil.copy(bad, repo / "data/benchmarks" / bad.name)
    add_copies(repo)  # enough records for --jobs 2 to start workers
    repository = Repository.open(repo)
    report = run_check(repository)
    assert sum(r.verdict is Verdict.ERROR for r in report.records) >= 15
    gotchas = gotcha_paths(repository.config, repository.catalogue())
    text, data = text_of_the_whole_report(repo), json_report.dumps(report, gotchas)
    for jobs in (1, 2):
        for cache in (None, tmp_path / f"cache-{jobs}", tmp_path / f"cache-{jobs}"):  # cold, warm
            assert text_sweep(repo, cache, jobs)[0] == text
            assert json_sweep(repo, cache, jobs)[0] == data


def test_a_text_sweep_after_a_json_sweep_adds_the_lines(repo: Path, tmp_path: Path) -> None:
    """Each format keeps its own bytes in the same row: a row from the other format's run
    is unpickled once, and its lines kept."""
    json_sweep(repo, tmp_path / "cache")
    whole = text_of_the_whole_report(repo)
    second, _ = text_sweep(repo, tmp_path / "cache")
    third, stats = text_sweep(repo, tmp_path / "cache")
    json_again, json_stats = json_sweep(repo, tmp_path / "cache")
    assert second == whole and third == whole and stats.hits == N_FIXTURES
    assert json_again == json_sweep(repo, None)[0] and json_stats.hits == N_FIXTURES


def test_the_cli_checks_a_big_cold_sweep_on_every_cpu_by_default(
    repo: Path, tmp_path: Path
) -> None:
    """`--jobs` defaults to 0: from 1,000 records, as many processes as CPUs (up to 8) when
    there is no cache, or when most of the first records missed it; a warm sweep stays on
    one process (workers would slow it). The report is always the one process's."""
    from roofbot.engine import AUTO_JOBS_FROM, auto_jobs

    assert auto_jobs(AUTO_JOBS_FROM - 1) == 1
    cpus = min(8, len(os.sched_getaffinity(0)))
    assert auto_jobs(AUTO_JOBS_FROM) == cpus
    add_copies(repo, AUTO_JOBS_FROM)
    run = [sys.executable, "-m", "roofbot", "check", "--repo", str(repo), "--format", "json",
           "-v", "--cache-dir", str(tmp_path / "cache")]  # fmt: skip

    def check(*extra: str) -> tuple[str, str]:
        out = subprocess.run([*run, *extra], capture_output=True, text=True, check=False)
        return out.stdout, out.stderr

    one, _ = check("--jobs", "1", "--no-cache")
    workers = f"checked on {cpus} processes"
    for extra in ((), ("--no-cache",)):  # the first run fills the cache: cold
        got, said = check(*extra)
        assert got == one and (workers in said) == (cpus > 1), said
    warm, said = check()
    assert warm == one and "processes" not in said and "0 checked" in said
