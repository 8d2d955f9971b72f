"""The hostile pull requests: each case is a set of files (or links, or a hook that writes what a
dict can't) a stranger's PR adds to the fixtures repository, beside two witness records whose
verdicts must come out the same in every case. Big files are generated in the case's temporary
folder, never committed to this project.

`raw` strings must never reach the comment or summary unescaped; `secret` strings must not
appear anywhere roofbot writes (the content of files it must not read or must not echo);
`errors` maps a path to the words its `error` verdict must say; `check` sees the whole result.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
BENCH = "data/benchmarks"
SOURCE = FIXTURES / BENCH / "llamacpp-rx7900xtx-gfx1100-qwen3-27b-q4-batch1-decode-tok-s.json"
MPT = f"{BENCH}/mpt7b-a100-bs1-per-user-decode-tps.json"
A100 = "data/accelerators/nvidia-a100-40gb-sxm4.json"
CONFIG = ".roofbot.yml"

#: Verdicts of the two witness records, whatever else the PR holds.
WITNESSES = {f"{BENCH}/witness-pass.json": "pass", f"{BENCH}/witness-violation.json": "violation"}
#: Never in the comment or summary as written, in any case.
RAW = ("{{ 7*7 }}", "<script", "<img", "[x](javascript:", "\u202e")
#: `{{ 31337*3 }}` evaluated: must never appear anywhere.
EVALUATED = "94011"
PASSWD = "root:x:0:0"
PAYLOAD = (
    "{{ 7*7 }} {{ 31337*3 }} {% if true %}jinja{% endif %} {{ ''.__class__.__mro__ }} "
    "<!-- roofbot:roofcheck --> --> </details> <details><summary>x</summary> "
    "<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) "
    "@everyone @octo-org/maintainers #1 octo-org/llm-roofline-records#2 GH-3 "
    "https://github.com/octo-org/llm-roofline-records/issues/4 www.example.com "
    "| pipe | `tick` ```fence``` ~~strike~~ **bold** $x^2$ \\ \u202eRTL\u202c \u200b "
    "\n# Injected heading\n| a | b |\n::error file=x,line=1::forged\n::set-output name=ok::true\n"
)
Edit = dict[str, str | bytes | None]
Hook = Callable[[Path, Path], None]  # (the workspace, a folder outside it)


@dataclass(frozen=True)
class Case:
    name: str
    files: Mapping[str, str | bytes | None] = field(default_factory=dict)
    links: Mapping[str, str] = field(default_factory=dict)  # path -> target ("{outside}" ok)
    hook: Hook | None = None
    raw: tuple[str, ...] = ()
    secret: tuple[str, ...] = ()
    errors: Mapping[str, str] = field(default_factory=dict)
    check: Callable[[Any], None] | None = None
    same_witnesses: bool = True  # False: the witnesses are checked, their verdicts may move
    timeout: float = 90.0


# ------------------------------------------------------------------ records


def record(rid: str, **fields: Any) -> dict[str, Any]:
    """A schema-valid benchmark record (the 7900 XTX calibration record's facts) as `rid`."""
    data: dict[str, Any] = json.loads(SOURCE.read_text("utf-8"))
    data["id"] = rid
    data.update(fields)
    return data


def dump(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def witnesses() -> Edit:
    value = record("x")["value"]
    return {
        f"{BENCH}/witness-pass.json": dump(record("witness-pass")),
        f"{BENCH}/witness-violation.json": dump(record("witness-violation", value=value * 3)),
    }


def _with_value(rid: str, literal: str, canary: str) -> str:
    """A record whose `value` is written as `literal` (not JSON-encodable by Python)."""
    text = dump(record(rid, value=123456.789, notes=canary))
    return text.replace("123456.789", literal, 1)


def _make_big() -> Any:
    spec = importlib.util.spec_from_file_location("make_big", FIXTURES / "broken" / "make_big.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _deep(repo: Path, outside: Path) -> None:
    _make_big().write_deep(str(repo / BENCH / "deep-nesting.json"), 100_000)


def _huge(repo: Path, outside: Path) -> None:
    _make_big().write_huge(str(repo / BENCH / "huge-50mb.json"), 50)


def _outside_files(outside: Path) -> None:
    outside.mkdir(parents=True, exist_ok=True)
    secret = record("outside-secret", notes="OUTSIDE-SECRET-4bd1c0", name="OUTSIDE-SECRET-4bd1c0")
    (outside / "secret.json").write_text(dump(secret), "utf-8")
    part = json.loads((FIXTURES / A100).read_text("utf-8"))
    part.update(id="outside-part", name="OUTSIDE-SECRET-4bd1c0 GPU")
    (outside / "outside-part.json").write_text(dump(part), "utf-8")


def _models_outside(repo: Path, outside: Path) -> None:
    """data/models/ replaced by a link to a folder outside holding a model record."""
    _outside_files(outside)
    model = json.loads((FIXTURES / "data/models/qwen3-32b.json").read_text("utf-8"))
    model.update(id="qwen3-27b", name="OUTSIDE-SECRET-4bd1c0 Qwen3 27B", params_b=1)
    (outside / "qwen3-27b.json").write_text(dump(model), "utf-8")
    shutil.rmtree(repo / "data" / "models")
    (repo / "data" / "models").symlink_to(outside)


def _gitlink(repo: Path, outside: Path) -> None:
    import subprocess

    sha = "0123456789abcdef0123456789abcdef01234567"
    subprocess.run(
        ["git", "update-index", "--add", "--cacheinfo", f"160000,{sha},{BENCH}/gitlink.json"],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip
    (repo / BENCH / "gitlink.json").mkdir()  # an uninitialised submodule: `add -A` keeps it


def _many_records(repo: Path, outside: Path) -> None:
    folder = repo / BENCH
    for i in range(3001):
        rid = f"gen-{i:05d}"
        (folder / f"{rid}.json").write_text(dump(record(rid)), "utf-8")


def _broken_catalogue(repo: Path, outside: Path) -> None:
    folder = repo / "data" / "accelerators"
    for i in range(600):
        (folder / f"bad-{i:03d}.json").write_text(
            f'{{"id": "bad-{i:03d}", "name": "CANARY-CATALOGUE {PAYLOAD[:40]}", ', "utf-8"
        )


def _config(extra: str = "", pins: str = "") -> str:
    """The fixtures' .roofbot.yml with `pins` added to its pins and `extra` at the end."""
    text = (FIXTURES / CONFIG).read_text("utf-8")
    assert "\ntraps: {}" in text
    return text.replace("\ntraps: {}", pins + "\ntraps: {}") + extra


BOMB = "a: &a [1,1,1,1,1,1,1,1,1]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


# ------------------------------------------------------------------ checks on results


def _verdicts(result: Any) -> dict[str, str]:
    return {r["path"]: r["verdict"] for r in result.report["records"]}


def _every_generated_record_checked(result: Any) -> None:
    v = _verdicts(result)
    generated = [p for p in v if p.startswith(f"{BENCH}/gen-")]
    assert len(generated) == 3001 and all(v[p] == "pass" for p in generated)
    assert len(result.comment) <= 65536
    assert f"{len(result.report['records'])} checked" in result.comment


def _calibration_broken(result: Any) -> None:
    assert result.report["calibration"]["ok"] is False
    assert "calibration **broken**" in result.comment
    assert "the calibration record is missing from the repository" in result.comment


def _config_refused(words: str) -> Callable[[Any], None]:
    def check(result: Any) -> None:
        assert "the PR&#x27;s .roofbot.yml" in result.comment or "the PR's .roofbot.yml" in (
            result.comment
        )
        assert words in result.comment, words
        assert result.statuses[-1]["description"] == "the PR's .roofbot.yml is invalid"

    return check


def _not_executed(result: Any) -> None:
    _config_refused("not valid YAML")(result)
    assert not (result.outside / "pwned").exists()


def _pin_shows(result: Any) -> None:
    v = _verdicts(result)
    assert v[f"{BENCH}/hidden-violation.json"] != "violation"  # the pin did hide it...
    body = result.comment
    assert "This pull request changes the instrument" in body  # ...and the comment says so
    assert "hidden-violation: weight\\_bytes" in body
    assert re.search(r"\[hidden-violation\]\(\S+\) \(pinned\)", body)  # linked to its file
    # issue 19: a pin the PR adds is checked twice, and the record it hides is held
    row = [
        line
        for line in body.splitlines()
        if line.startswith("| ") and "[hidden-violation](" in line
    ]
    assert row and "held: passes only under" in row[0], row


# ------------------------------------------------------------------ issue 19: the instrument

RTX4090 = "data/accelerators/nvidia-rtx-4090.json"
AWQ_SOURCE = FIXTURES / BENCH / "comm-5090-wsl2-qwen3-14b-awq-decode-tok-s.json"
#: LRM, RLM, ALM, ZWJ, ZWNJ, word joiner, U+180E, soft hyphen, CGJ, Hangul fillers, a tag
FORMAT_CHARS = (
    "\u200e\u200f\u061c\u200d\u200c\u2060\u180e\u00ad\u034f\u115f\u1160\u3164\uffa0\U000e0041"
)


def _on_4090(rid: str, percent: float, part: str = "nvidia-rtx-4090") -> str:
    """Qwen3-14B AWQ (7 GB) on one 24 GB card: 1008 GB/s / 7 GB = 144 tok/s on a 4090."""
    data = json.loads(AWQ_SOURCE.read_text("utf-8"))
    data.update(id=rid, accelerator_ids=[part], value=round(144.0 * percent / 100, 1),
                name="Qwen3-14B AWQ under vLLM on one 24GB card",
                methodology="vLLM serving Qwen/Qwen3-14B-AWQ on one card with 24GB GDDR6X, batch 1.")  # fmt: skip
    return dump(data)


def _part(**fields: Any) -> str:
    return dump({**json.loads((FIXTURES / RTX4090).read_text("utf-8")), **fields})


def _loosened_instrument() -> str:
    text = _config().replace("tolerance_pp: 0.1", "tolerance_pp: 1000")
    return text.replace("    weight_bytes: 14 GB                 # the seed's figure for MPT-7B FP16",
                        "    weight_bytes: 4 GB  # the seed's figure for MPT-7B FP16", 1)  # fmt: skip


def _mpt_at(percent: float) -> str:
    data = json.loads((FIXTURES / MPT).read_text("utf-8"))
    data["value"] = round(111.07 * percent / 100, 2)
    return dump(data)


def _base_instrument_judged(result: Any) -> None:
    assert result.report["calibration"]["ok"] is False  # the base's pins and tolerance
    assert "tolerance 0.1 pp" in result.comment
    assert "**Not applied**" in result.comment


def _no_calibration_set(result: Any) -> str:
    text = _config()
    start, end = text.index("calibration:"), text.index("# Inputs a record cannot carry")
    return text[:start] + "calibration: null\n\n" + text[end:]


def _calibration_still_runs(result: Any) -> None:
    assert "calibration **broken**" in result.comment


def _held(rid: str, *words: str) -> Callable[[Any], None]:
    def check(result: Any) -> None:
        body = result.comment
        assert "**Checked under both instruments:**" in body
        row = [line for line in body.splitlines() if line.startswith("| ") and f"[{rid}](" in line]
        assert row and "held: passes only under" in row[0], row
        for w in words:
            assert w in body, w

    return check


def _no_runner_command(result: Any) -> None:
    assert "##[" not in result.run.stdout + result.run.stderr


def _format_chars_gone(result: Any) -> None:
    for c in FORMAT_CHARS:
        assert c not in result.comment and c not in result.summary, hex(ord(c))
    assert "nvidi\\\\u0430-rtx-5090" in result.comment  # the homoglyph, written out


def _checked_not_error(*paths: str) -> Callable[[Any], None]:
    def check(result: Any) -> None:
        v = _verdicts(result)
        for p in paths:
            assert v[p] != "error", (p, v[p])

    return check


def _notes_capped(result: Any) -> None:
    assert "more (see the job summary)" in result.comment or len(result.comment) < 60000
    assert len(result.comment) <= 65536


# ------------------------------------------------------------------ the cases


def cases() -> list[Case]:
    p = BENCH
    every_string = record(
        "jinja-every-string-field",
        name=PAYLOAD,
        engine_id=PAYLOAD,
        model=PAYLOAD,
        format_id=PAYLOAD,
        unit=PAYLOAD,
        methodology=PAYLOAD,
        notes=PAYLOAD,
        accelerator_ids=[PAYLOAD],
        interconnect_ids=[PAYLOAD],
        sources=[PAYLOAD],
    )
    every_field = {k: (PAYLOAD if isinstance(v, str) else v) for k, v in every_string.items()}
    every_field.update(value=PAYLOAD, confidence=PAYLOAD, reproducible=PAYLOAD)
    mentions = (
        "@everyone @here @octo-org/maintainers #1 GH-2 octo-org/x#3 https://github.com/o/r/pull/4"
    )
    return [
        Case("json-nested-100000-deep", hook=_deep,
             errors={f"{p}/deep-nesting.json": "nested too deeply"}),
        Case("nan-value", {f"{p}/nan-value.json": _with_value("nan-value", "NaN", "CANARY-nan")},
             secret=("CANARY-nan",), errors={f"{p}/nan-value.json": "NaN is not a JSON number"}),
        Case("infinity-value",
             {f"{p}/infinity-value.json": _with_value("infinity-value", "-Infinity", "CANARY-inf")},
             secret=("CANARY-inf",), errors={f"{p}/infinity-value.json": "Infinity"}),
        Case("overflow-1e309",
             {f"{p}/overflow-1e309.json": _with_value("overflow-1e309", "1e309", "CANARY-1e309")},
             secret=("CANARY-1e309",), errors={f"{p}/overflow-1e309.json": "overflows a double"}),
        Case("negative-value", {f"{p}/negative-value.json": dump(record("negative-value",
                                                                        value=-47.06))},
             errors={f"{p}/negative-value.json": "non-negative"}),
        Case("huge-integer",
             {f"{p}/huge-integer.json": _with_value("huge-integer", "9" * 5000, "CANARY-int")},
             secret=("CANARY-int", "9" * 100),
             errors={f"{p}/huge-integer.json": "digits is not a measurement"}),
        Case("duplicate-keys",
             {f"{p}/duplicate-keys.json": dump(record("duplicate-keys", notes="CANARY-dup"))
              .replace('"value": 47.06,', '"value": 47.06, "value": 4706000,')},
             secret=("CANARY-dup",), errors={f"{p}/duplicate-keys.json": "appears twice"}),
        Case("utf8-bom",
             {f"{p}/utf8-bom.json": b"\xef\xbb\xbf" + dump(record("utf8-bom", notes="CANARY-bom"))
              .encode()},
             secret=("CANARY-bom",), errors={f"{p}/utf8-bom.json": "byte-order mark"}),
        Case("file-50-mb", hook=_huge, errors={f"{p}/huge-50mb.json": "MiB limit"}),
        Case("binary",
             {f"{p}/binary.json": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR CANARY-binary \xff\xfe"},
             secret=("CANARY-binary", "IHDR"), errors={f"{p}/binary.json": "binary"}),
        Case("non-utf8",
             {f"{p}/latin1.json": dump(record("latin1", notes="CANARY-latin1 caf\u00e9 \u00b5s"))
              .encode("latin-1")},
             secret=("CANARY-latin1",), errors={f"{p}/latin1.json": "not UTF-8"}),
        Case("symlink-to-etc-passwd", links={f"{p}/passwd.json": "/etc/passwd"},
             secret=(PASSWD,), errors={f"{p}/passwd.json": "symbolic link"}),
        Case("symlinks-out-of-the-repository",
             links={f"{p}/up.json": "../../", f"{p}/far.json": "../../../../../../../../",
                    f"{p}/outside.json": "{outside}/secret.json",
                    "data/accelerators/outside-part.json": "{outside}/outside-part.json"},
             hook=lambda repo, outside: _outside_files(outside),
             secret=("OUTSIDE-SECRET-4bd1c0",),
             errors={f"{p}/up.json": "symbolic link", f"{p}/outside.json": "symbolic link"}),
        Case("catalogue-folder-symlinked-out-of-the-repository", hook=_models_outside,
             secret=("OUTSIDE-SECRET-4bd1c0",), same_witnesses=False),
        Case("gitlink-record", hook=_gitlink, errors={f"{p}/gitlink.json": "not a regular file"}),
        Case("path-with-newlines",
             {f"{p}/evil\n# Injected heading\n::error::forged\n@everyone.json":
              dump(record("evil-newline"))},
             raw=("\n# Injected heading", "\n::error::forged")),
        Case("path-with-pipes", {f"{p}/a|b|c|d.json": dump(record("a-b-c-d"))}),
        Case("path-with-backticks", {f"{p}/`whoami` ```fence```.json": dump(record("ticks"))},
             raw=("`whoami`", "```fence```")),
        Case("path-with-html-comments",
             {f"{p}/<!-- roofbot:roofcheck -->.json": dump(record("comment-open")),
              f"{p}/--> <!-- x.json": dump(record("comment-close"))},
             raw=("<!-- roofbot:roofcheck -->.json", "--> <!-- x")),
        Case("path-with-html",
             {f"{p}/<img src=x onerror=alert(1)>.json": dump(record("img")),
              f"{p}/<details><summary>x.json": dump(record("details-open"))},
             raw=("<img src=x", "<details><summary>x")),
        Case("jinja-html-mentions-in-every-string-field",
             {f"{p}/jinja-every-string-field.json": dump(every_string)},
             raw=("\n# Injected heading",),
             check=_checked_not_error(f"{p}/jinja-every-string-field.json")),
        Case("jinja-in-every-field-schema-invalid",
             {f"{p}/jinja-every-field.json": dump(every_field)},
             errors={f"{p}/jinja-every-field.json": ""}),
        Case("mentions-references-urls",
             {f"{p}/mentions.json": dump(record("mentions", name=mentions, notes=mentions,
                                                 methodology=mentions + " batch size 1"))},
             check=_checked_not_error(f"{p}/mentions.json")),
        Case("long-invisible-and-control-text",
             {f"{p}/invisible.json": dump(record(
                 "invisible",
                 name="\u0000\u0007\u001b[31mred\u001b[0m \u202e\u2066\ufeff" + "z\u0301" * 4000,
                 notes="\u200d" * 10_000 + "💥" * 5000, methodology="batch size 1 " * 3000))},
             check=_checked_not_error(f"{p}/invisible.json")),
        Case("ids-that-collide",
             {f"{p}/witness-pass-copy.json": dump(record("witness-pass")),
              f"{p}/Witness-Pass.json": dump(record("witness-pass")),
              f"{p}/nvidia-a100-40gb-sxm4.json": dump(record("nvidia-a100-40gb-sxm4")),
              f"{p}/mpt7b-a100-bs1-per-user-decode-tps-2.json":
                  dump(record("mpt7b-a100-bs1-per-user-decode-tps"))},
             errors={f"{p}/witness-pass-copy.json": "differs from the file name",
                     f"{p}/Witness-Pass.json": "differs from the file name",
                     f"{p}/mpt7b-a100-bs1-per-user-decode-tps-2.json":
                         "differs from the file name"},
             check=_checked_not_error(f"{p}/nvidia-a100-40gb-sxm4.json")),
        Case("references-missing-or-looping",
             {f"{p}/loop-a.json": dump(record(
                 "loop-a", metric="tok_s_per_user",
                 notes="per-user side of loop-b; see loop-b and no-such-record-anywhere")),
              f"{p}/loop-b.json": dump(record(
                  "loop-b", metric="tps_aggregate",
                  notes="aggregate side of loop-a; see loop-a, loop-b itself")),
              f"{p}/dangling.json": dump(record(
                  "dangling", accelerator_ids=["../../../../etc/passwd", "no-such-part"],
                  format_id="../../etc/shadow", model="../../../../etc/hosts",
                  notes="compare ../../../etc/passwd and no-such-record-anywhere"))},
             secret=(PASSWD,),
             check=_checked_not_error(f"{p}/loop-a.json", f"{p}/loop-b.json",
                                      f"{p}/dangling.json")),
        Case("3001-changed-files", hook=_many_records, check=_every_generated_record_checked,
             timeout=150),
        Case("deleted-calibration-record", {MPT: None}, check=_calibration_broken),
        Case("roofbot-yml-alias-bomb", {CONFIG: BOMB}, check=_config_refused("YAML aliases")),
        Case("roofbot-yml-python-tags",
             {CONFIG: "pins: !!python/object/apply:os.system ['touch {outside}/pwned']\n"
                      "calibration: !!python/name:os.system\n"},
             check=_not_executed),
        Case("roofbot-yml-globs-outside-the-repository",
             {CONFIG: "records: ['../../*', '/etc/*']\n"
                      "catalogue: {accelerators: ['../../../etc/*.json']}\n"},
             check=_config_refused("points outside the repository")),
        Case("roofbot-yml-pin-that-hides-a-violation",
             {f"{p}/hidden-violation.json": dump(record("hidden-violation",
                                                        value=record("x")["value"] * 3)),
              CONFIG: _config(pins="  hidden-violation:\n    weight_bytes: 1 GB\n")},
             check=_pin_shows),
        Case("roofbot-yml-hostile-strings",
             {CONFIG: _config(pins=f"  {json.dumps(PAYLOAD)}:\n    weight_bytes: {json.dumps(PAYLOAD)}\n")}),
        Case("roofbot-yml-hostile-pin-keys-and-calibration",
             {CONFIG: _config(pins=f"  comm-5090-wsl2-qwen3-14b-awq-decode-tok-s:\n    {json.dumps(PAYLOAD)}: 1\n")
              .replace("check: memory-roof, percent: 51.9", f"check: {json.dumps(PAYLOAD)}, percent: 51.9")}),
        Case("roofbot-yml-over-256-kib", {CONFIG: _config("#" + "x" * 300_000 + "\n")},
             check=_config_refused("KiB")),
        Case("roofbot-yml-symlink-to-etc-passwd", {CONFIG: None},
             links={CONFIG: "/etc/passwd"}, secret=(PASSWD,),
             check=_config_refused("symbolic link")),
        Case("catalogue-record-hostile",
             {A100: dump({**json.loads((FIXTURES / A100).read_text("utf-8")),
                          "name": PAYLOAD, "memory_bandwidth_gbps": -1555})}),
        Case("600-broken-catalogue-files", hook=_broken_catalogue, secret=("CANARY-CATALOGUE",),
             check=_notes_capped),
        # issue 19: the instrument belongs to the base branch; logs and comments stay inert
        Case("roofbot-yml-loosens-calibration-pins-and-tolerance",
             {MPT: _mpt_at(270), CONFIG: _loosened_instrument()}, check=_base_instrument_judged),
        Case("roofbot-yml-drops-the-calibration-set",
             {MPT: _mpt_at(270), CONFIG: _no_calibration_set(None)}, check=_calibration_still_runs),
        Case("catalogue-part-raised-tenfold-for-its-own-record",
             {f"{p}/on-a-faster-4090.json": _on_4090("on-a-faster-4090", 348),
              RTX4090: _part(memory_bandwidth_gbps=10080)},
             check=_held("on-a-faster-4090", "| accelerators/nvidia-rtx-4090 | memory\\_bandwidth\\_gbps | 1008 | 10080 |")),
        Case("new-part-with-bogus-figures",
             {"data/accelerators/acme-x1.json": _part(id="acme-x1", name="Acme X1",
                                                      memory_bandwidth_gbps=50000),
              f"{p}/on-acme-x1.json": _on_4090("on-acme-x1", 348, "acme-x1")},
             check=_held("on-acme-x1", "#### New catalogue records", "memory\\_bandwidth\\_gbps 50000")),
        Case("file-name-with-a-runner-command",
             {f"{p}/x ##[stop-commands]pwnd.json": dump(record("x ##[stop-commands]pwnd",
                                                              value=record("x")["value"] * 3))},
             check=_no_runner_command),
        Case("format-characters-and-a-homoglyph-id",
             {f"{p}/tricky.json": dump(record("tricky", accelerator_ids=[
                 "nvidi\u0430-rtx-5090", f"nvidia{FORMAT_CHARS}-rtx-5090"],
                 notes=f"hidden{FORMAT_CHARS}text"))},
             raw=tuple(FORMAT_CHARS), check=_format_chars_gone),
    ]  # fmt: skip


def resolve(case: Case, outside: Path) -> tuple[Edit, dict[str, str]]:
    """The case's files and links with `{outside}` filled in, plus the witnesses."""
    files: Edit = dict(witnesses())
    for path, data in case.files.items():
        if isinstance(data, str):
            data = data.replace("{outside}", str(outside))
        files[path] = data
    links = {path: target.replace("{outside}", str(outside)) for path, target in case.links.items()}
    return files, links


def outside_dir(tmp: Path) -> Path:
    path = tmp / "outside"
    path.mkdir(parents=True, exist_ok=True)
    return path
