"""The users' real corpus: no false alarms, every unchecked record says what it lacks, and
the verdict counts and coverage printed for the record (see docs/findings.md)."""

from __future__ import annotations

from roofbot.core.results import Verdict

# Documented findings: the seed counts the local-* records (decommissioned upstream) over their
# roofs; docs/findings.md gives each one's arithmetic.
DOCUMENTED = ("local-",)


def test_no_violation_outside_documented_findings(real_report) -> None:  # type: ignore[no-untyped-def]
    bad = [
        r.id
        for r in real_report.records
        if r.verdict is Verdict.VIOLATION and not r.id.startswith(DOCUMENTED)
    ]
    assert bad == []


def benchmarks(report):  # type: ignore[no-untyped-def]
    """The report's benchmark records (a sweep also has a row for each invalid catalogue file)."""
    return [r for r in report.records if r.path.startswith("data/benchmarks/")]


def test_local_records_over_their_roofs(real_report) -> None:  # type: ignore[no-untyped-def]
    local = [r for r in benchmarks(real_report) if r.id.startswith("local-")]
    assert len(local) == 11
    over = sorted(r.id for r in local if r.verdict is Verdict.VIOLATION)
    assert len(over) == 6, over  # the seed counts 7; docs/findings.md says which differs and why


def test_six_placeholders_are_errors(real_report) -> None:  # type: ignore[no-untyped-def]
    errors = [r for r in benchmarks(real_report) if r.verdict is Verdict.ERROR]
    assert len(errors) == 6
    assert all("value" in r.messages[0].text for r in errors)
    # JSON's null, as the file says it, never Python's None
    assert all("at value: null is not of type 'number'" in r.messages[0].text for r in errors)


def test_111_catalogue_records_fail_the_repositorys_own_schemas(real_report) -> None:  # type: ignore[no-untyped-def]
    """As the repository's own CI finds them (docs/findings.md): each an error row on its
    file, and every record resting on one says so."""
    rows = [r for r in real_report.records if not r.path.startswith("data/benchmarks/")]
    kinds = {k: sum(r.path.startswith(f"data/{k}/") for r in rows)
             for k in ("accelerators", "models", "quantization")}  # fmt: skip
    assert kinds == {"accelerators": 55, "models": 8, "quantization": 48}
    assert len(rows) == 111
    assert all(r.verdict is Verdict.ERROR for r in rows)
    assert all(r.messages[0].text.startswith("not valid against schemas/") for r in rows)
    bad = {r.path for r in rows}
    marked = [r for r in benchmarks(real_report) if any("which is invalid" in m.text
                                                        for m in r.messages)]  # fmt: skip
    assert marked and all(any(p in m.text for p in bad for m in r.messages) for r in marked)


def test_coverage_and_every_unchecked_says_what_it_lacks(real_report, capsys) -> None:  # type: ignore[no-untyped-def]
    rows = [r for r in real_report.records if r.token_rate]
    assert (
        real_report.token_rate_records == 80
    )  # 81 with a token-rate unit, less one "not published" zero
    unchecked = [r for r in rows if r.verdict is Verdict.UNCHECKED]
    for r in unchecked:
        assert r.lacks, r.id
    share = real_report.checked / real_report.token_rate_records
    counts = {v.value: real_report.count(v) for v in Verdict}
    with capsys.disabled():
        print(
            f"\nreal corpus: {counts}; coverage {real_report.checked}/"
            f"{real_report.token_rate_records} = {100 * share:.1f}%"
        )
    # the nine left are listed, with what each lacks, in docs/findings.md: five mixtures of
    # experts whose active share is stated nowhere, and parts with no plausible dense peak
    assert share >= 0.88


def test_not_a_token_rate_is_reported_not_checked(real_report) -> None:  # type: ignore[no-untyped-def]
    for rid in (
        "alt-tpu-v6e-bf16-tps",
        "alt-aws-inf2-fp16-tps",
        "ev-llamacpp-spec-bench-replay-inflates",
    ):
        r = next(x for x in real_report.records if x.id == rid)
        assert r.verdict is Verdict.SKIPPED and "not-a-token-rate" in r.traps


def test_dangling_format_is_reported_on_its_input(real_report) -> None:  # type: ignore[no-untyped-def]
    r = next(
        x for x in real_report.records if x.id == "llamacpp-radeon-r9700-gfx1201-q1-0-decode-tok-s"
    )
    assert r.verdict is not Verdict.ERROR
    assert any("'2bit' does not resolve" in m.text for m in r.messages)


def test_a_zero_that_means_not_published_is_not_a_measurement(real_report) -> None:  # type: ignore[no-untyped-def]
    groq = next(x for x in real_report.records if x.id == "alt-groq-no-throughput-figure")
    assert groq.verdict is Verdict.SKIPPED and "no figure" in groq.messages[0].text
    idle = next(x for x in real_report.records if x.id.endswith("idle-node-draw"))
    assert idle.verdict is Verdict.PASS  # a measured zero (an idle node) is still checked
