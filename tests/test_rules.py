"""Every extraction rule against the real phrasings it must read and must leave alone."""

from __future__ import annotations

import pytest

from roofbot.core.rules import ALL_RULES, Rule

EXAMPLES = [(r.name, text, want) for r in ALL_RULES for text, want in r.examples]
REJECTS = [(r.name, text) for r in ALL_RULES for text in r.rejects]
RULES = {r.name: r for r in ALL_RULES}


def test_every_rule_has_evidence_both_ways() -> None:
    for r in ALL_RULES:
        assert r.examples, f"{r.name} has no phrase it must match"
    assert sum(1 for r in ALL_RULES if r.rejects) >= len(ALL_RULES) - 2


@pytest.mark.parametrize(("rule", "text", "want"), EXAMPLES)
def test_rule_reads_real_phrase(rule: str, text: str, want: object) -> None:
    r: Rule[object] = RULES[rule]
    assert want in [r.read(m) for m in r.pattern.finditer(text)]


@pytest.mark.parametrize(("rule", "text"), REJECTS)
def test_rule_leaves_alone(rule: str, text: str) -> None:
    assert RULES[rule].pattern.search(text) is None


def test_llama_bench_prompt_batch_is_not_a_decode_batch() -> None:
    from roofbot.core.rules import BATCH_RULES

    text = "llama-bench, -p 16384 -n 8192 -b 2048 -ub 1024 -ngl 99 -sm tensor"
    values = {r.read(m) for r in BATCH_RULES for m in r.pattern.finditer(text)}
    assert 2048 not in values and 1024 not in values and 8192 not in values
