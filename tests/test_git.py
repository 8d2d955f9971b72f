"""The git adapter on a real repository: changed files, GitTree reads, symlinks, dependents."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from roofbot.adapters.git import changed_files, has_commit, parse_raw_diff
from roofbot.adapters.git_tree import Entry, GitTree
from roofbot.adapters.repo import Repository, dependents
from roofbot.adapters.tree import TreeError
from roofbot.core.changes import references
from roofbot.core.config import Config
from roofbot.engine import run_check

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
B = "data/benchmarks"


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    return (
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
        .stdout.decode()
        .strip()
    )


@pytest.fixture(scope="module")
def pull(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    repo = tmp_path_factory.mktemp("git") / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "mv", f"{B}/local-8gb-7b-q4-decode.json", f"{B}/local-8gb-7b-q4-decode-v2.json")
    git(repo, "rm", "-q", f"{B}/alt-tpu-v6e-bf16-tps.json")
    os.symlink("/etc/passwd", repo / B / "evil.json")
    (repo / B / "spaced name.json").write_text("{}")
    acc = repo / "data/accelerators/nvidia-a100-40gb-sxm4.json"
    acc.write_text(acc.read_text().replace('"memory_bandwidth_gbps": 1555,',
                                           '"memory_bandwidth_gbps": 1935,'))  # fmt: skip
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    head = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", base)  # the working tree is the base: head is read from git
    return repo, base, head


def test_changed_files(pull: tuple[Path, str, str]) -> None:
    repo, base, head = pull
    got = {(c.status, c.path, c.old_path, c.symlink) for c in changed_files(repo, base, head)}
    assert got == {
        ("modified", "data/accelerators/nvidia-a100-40gb-sxm4.json", None, False),
        ("deleted", f"{B}/alt-tpu-v6e-bf16-tps.json", None, False),
        ("added", f"{B}/evil.json", None, True),
        ("added", f"{B}/spaced name.json", None, False),
        ("renamed", f"{B}/local-8gb-7b-q4-decode-v2.json", f"{B}/local-8gb-7b-q4-decode.json",
         False),
    }  # fmt: skip


def test_parse_raw_diff_handles_odd_names_and_gives_the_head_mode() -> None:
    z, one, two = "0" * 40, "1" * 40, "2" * 40
    raw = (
        f":100644 100644 {one} {two} M\0a\nb.json\0"
        f":100644 100644 {one} {one} R087\0old.json\0new name.json\0"
        f":100644 000000 {one} {z} D\0gone.json\0"
        f":000000 120000 {z} {two} A\0link.json\0"
        f":120000 100644 {one} {two} T\0was-a-link.json\0"
    ).encode()
    assert parse_raw_diff(raw) == [
        ("modified", "a\nb.json", None, "100644"),
        ("renamed", "new name.json", "old.json", "100644"),
        ("deleted", "gone.json", None, "000000"),
        ("added", "link.json", None, "120000"),
        ("typechange", "was-a-link.json", None, "100644"),
    ]
    assert parse_raw_diff(b"") == []


def test_has_commit(pull: tuple[Path, str, str]) -> None:
    repo, base, head = pull
    assert has_commit(repo, head) and has_commit(repo, base)
    assert not has_commit(repo, "f" * 40)
    assert not has_commit(repo, "HEAD; rm -rf /")


def test_git_tree_reads_the_head_without_checkout(pull: tuple[Path, str, str]) -> None:
    repo, _base, head = pull
    with GitTree(repo, head) as tree:
        assert f"{B}/local-8gb-7b-q4-decode-v2.json" in tree.glob(f"{B}/*.json")
        assert f"{B}/alt-tpu-v6e-bf16-tps.json" not in tree.glob(f"{B}/*.json")
        assert not tree.exists(f"{B}/evil.json")
        with pytest.raises(TreeError, match="symbolic link"):
            tree.read(f"{B}/evil.json", 1 << 20)
        with pytest.raises(TreeError, match="limit"):
            tree.read("data/accelerators/nvidia-a100-40gb-sxm4.json", 100)
        with pytest.raises(TreeError, match="outside"):
            tree.read("../x", 100)
        acc = json.loads(tree.read("data/accelerators/nvidia-a100-40gb-sxm4.json", 1 << 20))
        assert acc["memory_bandwidth_gbps"] == 1935
        assert tree.text(".roofbot.yml") is not None
    assert not (repo / B / "evil.json").exists()  # the working tree stayed at the base


def test_check_runs_on_the_head_tree(pull: tuple[Path, str, str]) -> None:
    repo, _base, head = pull
    with GitTree(repo, head) as tree:
        disk = Repository.open(repo)
        repository = Repository(tree, disk.config, disk.schemas)
        report = run_check(repository, [f"{B}/mpt7b-a100-bs1-per-user-decode-tps.json",
                                         f"{B}/evil.json"])  # fmt: skip
    by_id = {r.id: r for r in report.records}
    assert by_id["evil"].verdict.value == "error"
    assert not report.calibration.ok  # 1935 GB/s moves the MPT calibration entry


class _CountingTree(GitTree):
    """A GitTree that notes every `git ls-tree` it runs."""

    def __init__(self, repo_dir: Path, rev: str) -> None:
        super().__init__(repo_dir, rev)
        self.listed: list[tuple[str, ...]] = []

    def _ls(self, *args: str) -> list[Entry]:
        self.listed.append(args)
        return super()._ls(*args)


def test_a_prs_records_calibration_and_siblings_are_looked_up_in_two_git_calls(
    pull: tuple[Path, str, str],
) -> None:
    """Each file looked up alone runs `git ls-tree`, which reads the folder's whole tree
    object (about 20 ms in a folder of 100,000 records): `prefetch_checks` looks up the
    PR's records and the calibration set in one, and the records their texts name in a
    second. The report is the one the check gives file by file."""
    repo, _base, head = pull
    record = f"{B}/mpt7b-a100-bs1-per-user-decode-tps.json"  # names its two bs64 siblings
    disk = Repository.open(repo)
    reports, lookups = [], []
    for prefetch in (False, True):
        with _CountingTree(repo, head) as tree:
            repository = Repository(tree, disk.config, disk.schemas)
            if prefetch:
                repository.prefetch_checks([record], [c.id for c in disk.config.calibration])
            reports.append(run_check(repository, [record], calibration=True))
        lookups.append([a for a in tree.listed if any(x.startswith(f"{B}/") for x in a)])
    one_by_one, together = lookups
    assert len(one_by_one) >= 4 and len(together) == 2
    assert f"{B}/mpt7b-a100-bs64-aggregate-output-tps.json" in together[1]  # a sibling
    assert reports[0] == reports[1]
    by_id = {r.id: r for r in reports[1].records}
    assert by_id["mpt7b-a100-bs1-per-user-decode-tps"].checked


def test_dependents_of_a_changed_accelerator(pull: tuple[Path, str, str]) -> None:
    repo, _base, head = pull
    with GitTree(repo, head) as tree:
        repository = Repository(tree, Config(), Repository.open(repo).schemas)
        paths = repository.record_paths()
        deps = dependents(
            tree, paths, {("accelerators", "nvidia-a100-40gb-sxm4")}, repository.catalogue()
        )
    assert f"{B}/mpt7b-a100-bs1-per-user-decode-tps.json" in deps
    assert f"{B}/mpt7b-a100-bs64-aggregate-output-tps.json" in deps
    assert f"{B}/local-rtx-pro-6000-70b-q8-decode.json" not in deps


@pytest.mark.parametrize("corpus", ["fixtures_repo", "real_repo"])
def test_references_of_some_kinds_are_those_kinds_of_all_references(
    corpus: str, request: pytest.FixtureRequest
) -> None:
    """The reverse index looks only for the kinds that changed: for every record and every
    set of kinds, what it finds is exactly the full references of those kinds."""
    from itertools import combinations

    repository = request.getfixturevalue(corpus)
    catalogue = repository.catalogue()
    kinds = ("accelerators", "models", "quantization")
    found = {kind: 0 for kind in kinds}
    for path in repository.record_paths():
        data = repository.read(path).data
        if not isinstance(data, dict):
            continue
        every = references(data, catalogue)
        for kind, _ in every:
            found[kind] += 1
        for n in (1, 2):
            for some in combinations(kinds, n):
                want = {ref for ref in every if ref[0] in some}
                assert references(data, catalogue, frozenset(some)) == want, (path, some)
    assert all(found.values()), found  # each kind was there to be left out


def test_a_changed_gotcha_has_no_dependents_and_reads_nothing() -> None:
    """A gotcha is linked from a report, not referred to by a record: a change to one alone
    re-checks nothing, without reading the corpus for it."""

    class Unread:
        def read_many(self, paths: list[str], limit: int) -> None:
            raise AssertionError("the corpus was read")

    catalogue = Repository.open(FIXTURES).catalogue()
    assert dependents(Unread(), [f"{B}/x.json"], {("gotchas", "g")}, catalogue) == []


def test_read_many_matches_read_one_by_one(pull: tuple[Path, str, str]) -> None:
    """The batched reader (the reverse index's hot path) gives what `read` gives, errors too."""
    repo, _base, head = pull
    with GitTree(repo, head) as tree:
        paths = [*tree.glob(f"{B}/*.json"), "../outside.json", f"{B}/missing.json"]
        batched = dict(tree.read_many(paths * 8, 4096))  # more than one batch of 256
        assert len(paths) * 8 > 256
        for path in paths:
            got = batched[path]
            try:
                want: bytes | str = tree.read(path, 4096)
            except TreeError as e:
                want = str(e)
            assert (str(got) if isinstance(got, TreeError) else got) == want, path
        assert isinstance(batched[f"{B}/evil.json"], TreeError)  # a link is never read
        assert isinstance(batched["../outside.json"], TreeError)


def test_record_globs_never_cross_a_folder() -> None:
    from roofbot.adapters.tree import too_big
    from roofbot.core.changes import matches_any, path_matches

    assert path_matches("data/benchmarks/x.json", "data/benchmarks/*.json")
    assert not path_matches("data/benchmarks/sub/x.json", "data/benchmarks/*.json")
    assert path_matches("data/benchmarks/sub/x.json", "data/*/*/*.json")
    assert not matches_any("data/benchmarks/sub/x.json", ["data/benchmarks/*.json"])
    assert too_big("r.json", 3000, 1024) == "r.json is 2.9 KiB, over the 1 KiB limit for one record"
    assert "over the 2 MiB limit" in too_big("r.json", 50 << 20, 2 << 20)


def test_a_double_star_segment_matches_any_depth_as_git_and_pathlib_do(
    pull: tuple[Path, str, str], tmp_path: Path
) -> None:
    from roofbot.adapters.git_tree import GitTree
    from roofbot.adapters.tree import FolderTree
    from roofbot.core.changes import path_matches

    assert path_matches("data/benchmarks/x.json", "data/**/*.json")
    assert path_matches("data/benchmarks/sub/deeper/x.json", "data/**/*.json")
    assert path_matches("data/x.json", "data/**/*.json")  # `**` is zero folders too
    assert path_matches("data/benchmarks/x.json", "**/x.json")
    assert not path_matches("other/x.json", "data/**/*.json")
    assert not path_matches("data/benchmarks/x.yml", "data/**/*.json")
    repo, _base, head = pull
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    for name in ("a/top.json", "a/b/mid.json", "a/b/c/low.json", "a/b/c/not.txt"):
        (tmp_path / name).write_text("{}", "utf-8")
    want = ["a/b/c/low.json", "a/b/mid.json", "a/top.json"]
    assert FolderTree(tmp_path).glob("a/**/*.json") == want
    assert FolderTree(tmp_path).glob("a/**") == [*want[:1], "a/b/c/not.txt", *want[1:]]
    with GitTree(repo, head) as tree:
        found = tree.glob("data/**/*.json")
    assert f"{B}/mpt7b-a100-bs1-per-user-decode-tps.json" in found
    assert any(p.startswith("data/accelerators/") for p in found)


def test_prefetched_paths_are_answered_without_git(pull: tuple[Path, str, str]) -> None:
    """`prefetch` looks up many paths in one `git ls-tree` (a PR's calibration set): after
    it, `exists` answers them from memory, as a tree without it answers them from git."""
    repo, _base, head = pull
    paths = [f"{B}/mpt7b-a100-bs1-per-user-decode-tps.json", f"{B}/no-such-record.json",
             "data/accelerators/nvidia-a100-40gb-sxm4.json", "data/accelerators"]  # fmt: skip
    with GitTree(repo, head) as plain:
        expected = [plain.exists(p) for p in paths]
    assert expected == [True, False, True, False]
    with GitTree(repo, head) as tree:
        tree.prefetch(paths)
        (repo / ".git").rename(repo / ".git-away")  # any git command now fails
        try:
            assert [tree.exists(p) for p in paths] == expected
        finally:
            (repo / ".git-away").rename(repo / ".git")


def test_changed_references_are_the_catalogue_records_a_record_can_refer_to() -> None:
    from roofbot.core.changes import changed_references
    from roofbot.core.config import DEFAULT_CATALOGUE as globs

    paths = [
        "data/accelerators/h100-sxm5.json",
        "data/models/llama-2-70b.json",
        "data/quantization/gguf-q4-k-m.json",
        "data/gotchas/batch-1-roof.json",  # linked, not referred to
        "data/benchmarks/x.json",
        "README.md",
    ]
    assert changed_references(paths, globs) == {
        ("accelerators", "h100-sxm5"),
        ("models", "llama-2-70b"),
        ("quantization", "gguf-q4-k-m"),
    }
