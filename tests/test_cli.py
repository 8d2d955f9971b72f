"""The CLI as a person uses it: explain, parts, coverage, exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import FIXTURES


def roofbot(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "roofbot", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, check=False)  # fmt: skip


def test_explain_shows_each_input_with_its_provenance() -> None:
    out = roofbot("explain", "--repo", str(FIXTURES), "mpt7b-a100-bs64-aggregate-output-tps")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "batch" in text and 'unit: "' in text  # the batch, and the words it was read from
    assert "pin -> data/accelerators/nvidia-a100-40gb-sxm4.json" in text
    assert "64 x 111.07 tok/s = 7108.57 tok/s" in text
    assert "not applied" in text and "batch-1-roof-on-aggregate" in text


def test_explain_unknown_id_is_a_usage_error() -> None:
    out = roofbot("explain", "--repo", str(FIXTURES), "no-such-record")
    assert out.returncode == 2 and "no benchmark record" in out.stderr


def test_parts_lists_the_resolved_catalogue() -> None:
    out = roofbot("parts", "--repo", str(FIXTURES), "a100")
    assert out.returncode == 0
    assert "nvidia-a100-40gb-sxm4" in out.stdout and "1555 GB/s" in out.stdout
    sparse = roofbot("parts", "--repo", str(FIXTURES), "rtx-pro-6000")
    assert "sparse only: fp4" in sparse.stdout


def test_coverage_says_what_unchecked_records_lack() -> None:
    out = roofbot("coverage", "--repo", str(FIXTURES))
    assert out.returncode == 0
    assert "lacks accelerator" in out.stdout
    assert "coverage: 28 of 30" in out.stdout
    data = json.loads(roofbot("coverage", "--repo", str(FIXTURES), "--format", "json").stdout)
    assert data["checked"] == 28 and data["token_rate_records"] == 30


def test_exit_codes(tmp_path: Path) -> None:
    assert roofbot("check", "--repo", str(FIXTURES)).returncode == 0  # deprecated never fail
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    cfg = repo / ".roofbot.yml"
    cfg.write_text(cfg.read_text().replace("deprecated_fail: false", "deprecated_fail: true"))
    assert roofbot("check", "--repo", str(repo)).returncode == 1
    cfg.write_text("fail_on: [nonsense]\n")
    bad = roofbot("check", "--repo", str(repo))
    assert bad.returncode == 2 and "fail_on" in bad.stderr


def test_a_misspelt_config_key_is_a_usage_error_that_says_which_and_the_right_one(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    cfg = repo / ".roofbot.yml"
    cfg.write_text(cfg.read_text().replace("deprecated_fail: false", "deprecated_fial: false"))
    out = roofbot("check", "--repo", str(repo))
    assert out.returncode == 2, out.stdout
    assert (
        "Error: .roofbot.yml: unknown key(s) deprecated_fial (did you mean deprecated_fail?)"
        in (out.stderr)
    )


def test_text_output_is_verdict_first_and_uncoloured_off_a_terminal() -> None:
    out = roofbot("check", "--repo", str(FIXTURES))
    lines = out.stdout.splitlines()
    assert lines[0].split()[0] in {"error", "violation", "suspect", "unchecked", "pass"}
    assert "\x1b[" not in out.stdout
    assert "calibration: ok (6/6 within 0.1 pp)" in out.stdout


def test_check_prints_the_json_report_byte_for_byte(fixtures_repo) -> None:  # type: ignore[no-untyped-def]
    """`check --format json` prints exactly what the report serialises to."""
    from roofbot.engine import run_check
    from roofbot.links import gotcha_paths
    from roofbot.render import json_report

    report = run_check(fixtures_repo)
    links = gotcha_paths(fixtures_repo.config, fixtures_repo.catalogue())
    printed = roofbot("check", "--repo", str(FIXTURES), "--format", "json").stdout
    assert printed == json_report.dumps(report, links)


def test_the_json_report_of_nothing_is_valid() -> None:
    """A change set with no record in it (pre-commit passing a README) checks nothing."""
    out = roofbot("check", "--changed", "README.md", "--format", "json", cwd=FIXTURES)
    data = json.loads(out.stdout)
    assert data["records"] == [] and data["ok"] is True and out.returncode == 0


def test_a_wrong_path_is_a_usage_error_never_zero_records_ok(tmp_path: Path) -> None:
    gone = roofbot("check", "--repo", str(tmp_path / "path" / "that" / "does" / "not" / "exist"))
    assert gone.returncode == 2 and "no such folder" in gone.stderr, gone.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    for command in ("check", "coverage", "parts", "explain x"):
        out = roofbot(*command.split(), cwd=empty)
        assert out.returncode == 2, (command, out.stdout)
        assert "no records repository at or above" in out.stderr, out.stderr
    assert "0 records" not in gone.stdout + empty.name


def test_a_folder_with_no_records_and_no_catalogue_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "data" / "benchmarks").mkdir(parents=True)
    out = roofbot("check", "--repo", str(tmp_path))
    assert out.returncode == 2
    assert "holds no benchmark records" in out.stderr and "no catalogue" in out.stderr


def test_a_records_glob_that_matches_nothing_is_a_usage_error(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    cfg = repo / ".roofbot.yml"
    cfg.write_text(cfg.read_text().replace('["data/benchmarks/*.json"]', '["data/bench/*.json"]'))
    out = roofbot("check", "--repo", str(repo))
    assert out.returncode == 2
    assert "the records glob 'data/bench/*.json' matches no file" in out.stderr
    quoted = roofbot("check", "--repo", str(FIXTURES), "data/benchmarks/no-such-*.json")
    assert quoted.returncode == 2 and "matches no file" in quoted.stderr


def test_run_from_inside_the_repository_finds_its_root() -> None:
    inside = roofbot("check", "--format", "json", cwd=FIXTURES / "data" / "benchmarks")
    at_root = roofbot("check", "--format", "json", cwd=FIXTURES)
    assert inside.returncode == at_root.returncode == 0, inside.stderr
    assert json.loads(inside.stdout) == json.loads(at_root.stdout)
    deep = roofbot("coverage", "--repo", str(FIXTURES / "data" / "accelerators"))
    assert "coverage: 28 of 30" in deep.stdout


def test_check_and_explain_take_an_id_or_a_path() -> None:
    rid = "mpt7b-a100-bs1-per-user-decode-tps"
    path = f"data/benchmarks/{rid}.json"
    by_id = roofbot("check", "--repo", str(FIXTURES), rid, "--format", "json")
    by_path = roofbot("check", "--repo", str(FIXTURES), path, "--format", "json")
    assert by_id.returncode == by_path.returncode == 0, by_id.stderr
    assert json.loads(by_id.stdout) == json.loads(by_path.stdout)
    assert [r["id"] for r in json.loads(by_id.stdout)["records"]] == [rid]
    explained = roofbot("explain", "--repo", str(FIXTURES), rid)
    from_path = roofbot("explain", "--repo", str(FIXTURES), path)
    from_inside = roofbot("explain", f"{rid}.json", cwd=FIXTURES / "data" / "benchmarks")
    assert explained.returncode == from_path.returncode == from_inside.returncode == 0
    assert explained.stdout == from_path.stdout == from_inside.stdout


def test_an_unknown_id_gets_did_you_mean() -> None:
    typo = "mpt7b-a100-bs1-per-user-decode-tp"
    for command in ("check", "explain"):
        out = roofbot(command, "--repo", str(FIXTURES), typo)
        assert out.returncode == 2, out.stdout
        assert f"no benchmark record with id '{typo}'" in out.stderr
        assert "did you mean mpt7b-a100-bs1-per-user-decode-tps" in out.stderr
    missing = roofbot("check", "--repo", str(FIXTURES), "data/benchmarks/mpt7b-a100-bs1.json")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_an_id_resolves_under_any_records_glob_and_is_never_its_own_suggestion(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    nested = repo / "data" / "benchmarks" / "2026"
    nested.mkdir()
    rid = "mpt7b-a100-bs64-per-user-decode-tps"
    (repo / "data" / "benchmarks" / f"{rid}.json").rename(nested / f"{rid}.json")
    config = (repo / ".roofbot.yml").read_text("utf-8")
    (repo / ".roofbot.yml").write_text(
        config.replace('records: ["data/benchmarks/*.json"]', 'records: ["data/**/*.json"]'),
        "utf-8",
    )
    out = roofbot("explain", "--repo", str(repo), rid)
    assert out.returncode == 0, out.stderr
    assert f"data/benchmarks/2026/{rid}.json" in out.stdout
    typo = rid[:-1]
    missing = roofbot("check", "--repo", str(repo), typo)
    assert missing.returncode == 2
    suggested = missing.stderr.split("did you mean ", 1)[1].split("?)", 1)[0].split(" or ")
    assert suggested[0] == rid and typo not in suggested


def test_a_config_error_cannot_write_a_workflow_command(tmp_path: Path) -> None:
    """A pull request's `.roofbot.yml` whose keys and values hold line breaks and `::`
    commands: the CLI's error names them on one line, so no line of its output starts with
    `::` (GitHub Actions reads such a line in a job log as a workflow command)."""
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    forged = "x\n::add-mask::secret\r::stop-commands::t0k3n\u2028::error file=a::b\x85"
    for text in (
        json.dumps({forged: None}),  # an unknown key
        json.dumps({"fail_on": [forged]}),  # a value
        "fail_on: [\n::error::x\n",  # YAML that does not parse
    ):
        (repo / ".roofbot.yml").write_text(text, encoding="utf-8")
        proc = roofbot("check", "--repo", str(repo))
        assert proc.returncode == 2, proc.stderr
        lines = (proc.stdout + proc.stderr).splitlines()
        assert [line for line in lines if line.startswith("Error: ")], lines
        assert not [line for line in lines if line.lstrip().startswith("::")], lines


def test_check_fail_on_decides_the_exit_code() -> None:
    """The fixtures' unchecked records pass by default; --fail-on unchecked fails on them,
    and an unknown verdict is a usage error."""
    assert roofbot("check", "--repo", str(FIXTURES), "-q").returncode == 0
    strict = roofbot("check", "--repo", str(FIXTURES), "-q", "--fail-on", "violation,unchecked")
    assert strict.returncode == 1, strict.stdout
    assert "unchecked" in strict.stdout
    as_json = roofbot("check", "--repo", str(FIXTURES), "--fail-on", "unchecked error",
                      "--format", "json")  # fmt: skip
    data = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and data["ok"] is False
    bad = roofbot("check", "--repo", str(FIXTURES), "--fail-on", "violations")
    assert bad.returncode == 2 and "'violations'" in bad.stderr


def test_a_pin_that_points_at_nothing_is_a_config_error(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    shutil.copytree(FIXTURES, repo, ignore=shutil.ignore_patterns("broken"))
    cfg = repo / ".roofbot.yml"
    good = cfg.read_text()
    rid = "mpt7b-a100-bs1-per-user-decode-tps"
    cfg.write_text(good.replace(f"  {rid}:\n", f"  {rid[:-1]}:\n", 1))  # a typo'd record id
    out = roofbot("check", "--repo", str(repo))
    assert out.returncode == 2, out.stdout
    assert f"pins: '{rid[:-1]}' is not the id of any benchmark record" in out.stderr
    assert f"did you mean {rid}" in out.stderr
    # a pinned part the catalogue lacks: the record's check would say "pin the accelerator"
    cfg.write_text(good.replace("accelerator: nvidia-a100-40gb-sxm4  # accelerator_ids is empty",
                                "accelerator: nvidia-a100-40gb-sxm  # accelerator_ids is empty"))  # fmt: skip
    out = roofbot("explain", "--repo", str(repo), rid)
    assert out.returncode == 2, out.stdout
    assert f"pins: {rid}: accelerator 'nvidia-a100-40gb-sxm' is not in the catalogue" in out.stderr
    assert "did you mean nvidia-a100-40gb-sxm4" in out.stderr


def loaded_by(*args: str) -> set[str]:
    """The modules a `roofbot` run has imported by its end."""
    code = ("import sys\nfrom roofbot.cli import main\nmain(sys.argv[1:])\n"
            "sys.stderr.write('\\n' + '\\n'.join(sorted(sys.modules)))\n")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.split("\n"))


def test_check_imports_only_what_its_format_uses() -> None:
    """Start-up is the pre-commit hook's whole cost: `check` loads neither GitHub, git, the
    action, Jinja nor a renderer the chosen format does not use."""
    one = "data/benchmarks/mpt7b-a100-bs1-per-user-decode-tps.json"
    unused = {"github", "jinja2", "matplotlib", "roofbot.action", "roofbot.adapters.git",
              "roofbot.adapters.git_tree", "roofbot.render.markdown", "roofbot.preview"}  # fmt: skip
    text = loaded_by("check", "--repo", str(FIXTURES), "--changed", one)
    assert "roofbot.render.text" in text and "jsonschema" in text  # the check did run
    assert text & (unused | {"roofbot.render.json_report", "roofbot.render.sarif"}) == set()
    as_json = loaded_by("check", "--repo", str(FIXTURES), "--format", "json", one)
    assert "roofbot.render.json_report" in as_json
    assert as_json & (unused | {"roofbot.render.text", "roofbot.render.sarif"}) == set()
