"""Every reader rule, aside and cue against the real phrases (from the users' records) that it
must read and must leave alone, each read through the whole reader: clauses, cues and asides
included. A rule and its evidence can't drift apart."""

from __future__ import annotations

import re
from typing import Any

import pytest

from roofbot.core.reader.asides import ASIDES
from roofbot.core.reader.cues import CUES
from roofbot.core.reader.denials import TRIGGERS, Side, Trigger
from roofbot.core.reader.reading import Mention, lowered, read_field
from roofbot.core.reader.rule import Kind, Stance
from roofbot.core.reader.vocab import RULES

RULE = {r.name: r for r in RULES}
READS = [(r.name, text, want) for r in RULES for text, want in r.reads]
LEAVES = [(r.name, text) for r in RULES for text in r.leaves]


def mentions(text: str, field: str = "methodology") -> list[Mention]:
    found, _ = read_field(field, text)
    return found


def test_every_rule_aside_and_cue_has_evidence_both_ways() -> None:
    for r in RULES:
        assert r.reads, f"{r.name} has no phrase it must read"
        assert r.leaves, f"{r.name} has no phrase it must leave alone"
    for a in ASIDES:
        assert a.reads and a.leaves, a.name
    for c in CUES:
        assert c.reads, c.name
    names = [r.name for r in RULES] + [a.name for a in ASIDES] + [c.name for c in CUES]
    assert len(names) == len(set(names)), "two rules share a name"


@pytest.mark.parametrize(("rule", "text", "want"), READS)
def test_rule_reads_its_real_phrase(rule: str, text: str, want: Any) -> None:
    got = [m.value for m in mentions(text) if m.rule == rule and m.affirmed]
    assert want in got, f"{rule} read {got} from {text!r}"


@pytest.mark.parametrize(("rule", "text"), LEAVES)
def test_rule_leaves_its_real_phrase_alone(rule: str, text: str) -> None:
    got = [m for m in mentions(text) if m.rule == rule and m.affirmed]
    assert not got, f"{rule} read {[m.value for m in got]} from {text!r}"


@pytest.mark.parametrize(
    ("aside", "text"), [(a.name, t) for a in ASIDES for t in a.reads], ids=lambda v: str(v)[:40]
)
def test_aside_claims_its_phrase(aside: str, text: str) -> None:
    a = next(x for x in ASIDES if x.name == aside)
    assert a.pattern.search(text if a.cased else lowered(text)), f"{aside} does not claim {text!r}"


@pytest.mark.parametrize(
    ("aside", "text"), [(a.name, t) for a in ASIDES for t in a.leaves], ids=lambda v: str(v)[:40]
)
def test_aside_leaves_its_phrase(aside: str, text: str) -> None:
    a = next(x for x in ASIDES if x.name == aside)
    assert not a.pattern.search(text if a.cased else lowered(text)), f"{aside} claims {text!r}"


def _stance_of(text: str, word: str) -> set[Stance]:
    """The stances of every mention that covers `word` in `text`; where no rule mentions it
    (a part's name, matched against the catalogue), whether the reader keeps it as this run's."""
    at = text.index(word)
    found = {m.stance for m in mentions(text) if m.span.start <= at < m.span.end}
    if not found:
        _, this_run = read_field("methodology", text)
        found = {Stance.AFFIRMED if this_run[at] != " " else Stance.OTHER_RUN}
    return found


@pytest.mark.parametrize(
    ("cue", "text", "word"),
    [(c.name, t, w) for c in CUES for t, w in c.reads],
    ids=lambda v: str(v)[:40],
)
def test_cue_covers_its_word(cue: str, text: str, word: str) -> None:
    c = next(x for x in CUES if x.name == cue)
    stances = _stance_of(text, word)
    assert c.stance in stances or (Stance.OTHER_RUN in stances and len(stances) == 1), (
        f"{cue} does not cover {word!r} in {text!r}: {stances}"
    )


@pytest.mark.parametrize(
    ("cue", "text", "word"),
    [(c.name, t, w) for c in CUES for t, w in c.leaves],
    ids=lambda v: str(v)[:40],
)
def test_cue_leaves_its_word(cue: str, text: str, word: str) -> None:
    stances = _stance_of(text, word)
    assert stances == {Stance.AFFIRMED}, f"{word!r} in {text!r} is {stances}"


def test_a_pattern_that_reads_the_lowered_field_is_written_in_lower_case() -> None:
    """A pattern reads its field lower-cased unless its rule says `cased`: a capital letter in
    it (outside an escape such as \\d or \\S) could never match."""
    import re

    for x in (*RULES, *CUES, *ASIDES):
        if not x.cased:
            literal = re.sub(r"\\.", "", x.pattern.pattern)
            assert not re.search(r"[A-Z]", literal), f"{x.name}: {x.pattern.pattern}"


def test_lowering_keeps_every_offset() -> None:
    for text in ("İstanbul H100 x8", "STRASSE ß", "ǅ Ǆ", "8x H100"):
        assert len(lowered(text)) == len(text)


def test_a_set_aside_reading_says_why() -> None:
    found = mentions("host link 4x PCIe 4.0 x16, 2x Intel Xeon Platinum 8380")
    aside = [m for m in found if m.stance is Stance.SET_ASIDE]
    assert aside and all("not accelerators" in m.why for m in aside)
    assert "PCIe" in aside[0].why


def test_two_phrasings_around_one_number_state_it_once() -> None:
    """'LPDDR5X, 273 GB/s memory bandwidth' is one statement that two bandwidth rules read:
    one mention, where the earlier phrasing starts."""
    text = "48 GB unified LPDDR5X, 273 GB/s memory bandwidth, in a MacBook Pro"
    found = [m for m in mentions(text) if m.value == 273.0]
    assert [m.rule for m in found] == ["memory-then-bandwidth"]
    both = mentions("concurrency 128 in-flight requests")
    assert [(m.rule, m.value) for m in both] == [("concurrency-n", 128)]


@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda t: f"{t.side.name}:{t.example[:30]}")
def test_each_denial_trigger_denies_its_term_in_its_real_phrase(trigger: Trigger) -> None:
    """One line of data per trigger: its own words are found in its phrase, on its side of
    the term, and the term is denied with certainty."""
    low = lowered(trigger.example)
    words = re.search(trigger.words, low)
    at = trigger.example.index(trigger.term)
    assert words, f"{trigger.words!r} is not in {trigger.example!r}"
    found = [m for m in re.finditer(trigger.words, low)]
    if trigger.side is Side.BEFORE:
        assert any(w.end() <= at for w in found), "a before-trigger must stand before its term"
    else:
        assert any(w.start() >= at for w in found), "an after-trigger must stand after its term"
    covering = [m for m in mentions(trigger.example) if m.span.start <= at < m.span.end]
    assert covering, f"no rule reads {trigger.term!r} in {trigger.example!r}"
    assert {m.stance for m in covering} == {Stance.DENIED}


KIND_PHRASES = [("8x H100", Kind.COUNT), ("batch size 64", Kind.BATCH), ("FP8", Kind.PRECISION),
                ("TP=8", Kind.PARALLELISM), ("MTP", Kind.SPECULATIVE)]  # fmt: skip
FORMS = ["without {}", "no {}", "{} off", "{}: disabled", "{} was not used", "neither {} nor EAGLE"]


@pytest.mark.parametrize(("phrase", "kind"), KIND_PHRASES)
@pytest.mark.parametrize("form", FORMS)
def test_a_denial_applies_to_every_input_kind_alike(phrase: str, kind: Kind, form: str) -> None:
    text = "Run on a node. " + form.format(phrase)
    mine = [m for m in mentions(text) if m.kind is kind]
    assert mine and not any(m.affirmed for m in mine), (text, [(m.value, m.stance) for m in mine])
    assert [m for m in mentions(phrase) if m.kind is kind and m.affirmed]


def test_a_denial_is_sure_next_to_it_and_unsure_further_off_in_its_clause() -> None:
    text = "not under the usual serving stack or MTP"
    assert _stance_of(text, "MTP") == {Stance.UNSURE}
    assert _stance_of("not MTP", "MTP") == {Stance.DENIED}
    unsure = [m for m in mentions(text) if m.stance is Stance.UNSURE]
    assert unsure and unsure[0].why.startswith("unsure")


def test_a_denial_stops_at_a_word_that_starts_another_statement() -> None:
    assert _stance_of("8x H100 SXM5 with MTP off", "8x") == {Stance.AFFIRMED}
    assert _stance_of("8x H100 SXM5 with MTP off", "MTP") == {Stance.DENIED}
    assert _stance_of("no MTP but EAGLE-3", "EAGLE-3") == {Stance.AFFIRMED}


def test_a_denial_after_a_colon_denies_the_clause_the_colon_ends() -> None:
    assert _stance_of("1x L40S, speculative decoding: disabled", "speculative") == {Stance.DENIED}
    assert _stance_of("1x L40S, speculative decoding: disabled", "1x") == {Stance.AFFIRMED}
    assert _stance_of("单卡 L40S，MTP：关闭", "MTP") == {Stance.DENIED}


def test_a_field_full_of_denials_reads_in_well_under_a_second_each() -> None:
    """A stranger's 20,000 characters of "MTP, off," (2,000 denials, 2,000 mentions): each
    mention is weighed against its own clause's denials, not every denial of the field."""
    import time

    for text in ("MTP, off, " * 2000, "not " * 5000 + "MTP", "8x H100 with " * 1500 + "MTP off"):
        started = time.perf_counter()
        mentions(text[:20000])
        assert time.perf_counter() - started < 2.0
