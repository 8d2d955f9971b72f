"""Every extraction rule against the real phrasings it must read and must leave alone."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize(("rule", "text", "want"), EXAMPLES)
def test_needles_never_hide_an_example(rule: str, text: str, want: object) -> None:
    assert RULES[rule].may_match(text.casefold())


PHRASES = sorted({text for _, text, _ in EXAMPLES} | {text for _, text in REJECTS})
NOISE = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x17F), max_size=40)


@settings(max_examples=400)
@given(st.lists(st.one_of(st.sampled_from(PHRASES), NOISE), max_size=4).map(" ".join))
def test_needles_are_sound_on_arbitrary_text(text: str) -> None:
    """A pattern that matches implies one of its needles is present (the skip is safe)."""
    for r in ALL_RULES:
        if r.pattern.search(text):
            assert r.may_match(text.casefold()), (r.name, text)


@settings(max_examples=150)
@given(st.lists(st.one_of(st.sampled_from(PHRASES), NOISE), min_size=1, max_size=16).map(" ".join))
def test_find_reads_what_a_whole_scan_reads(text: str) -> None:
    """`find` writes the needle test out and scans only windows of long texts (up to 16
    phrases here, so both happen): it reads exactly what each pattern reads over the whole."""
    from roofbot.core.extract import find

    for r in ALL_RULES:
        whole = [r.read(m) for m in r.pattern.finditer(text)]
        assert [h.value for h in find((r,), {"f": text}, ("f",))] == whole, (r.name, text)


def test_windowed_scanning_finds_what_a_whole_scan_finds(real_repo) -> None:  # type: ignore[no-untyped-def]
    """Over every text field of the real corpus, each rule windowed == each rule whole."""
    from roofbot.core.extract import TextFields, find

    for path in real_repo.record_paths():
        data = real_repo.read(path).data
        for field in ("name", "model", "unit", "methodology", "notes"):
            text = data.get(field)
            if not isinstance(text, str):
                continue
            fields = TextFields()
            fields[field] = text
            for r in ALL_RULES:
                whole = [(r.read(m), m.span()) for m in r.pattern.finditer(text)]
                windowed = [h.value for h in find((r,), fields, (field,))]
                assert windowed == [v for v, _ in whole], (path, field, r.name)


def test_no_real_match_reaches_more_than_half_a_window_from_its_needle(real_repo) -> None:  # type: ignore[no-untyped-def]
    """The window's margin: over the real records' texts and every rule's examples, each match
    holds a needle no further than WINDOW // 2 characters from either end of the match."""
    from roofbot.core.extract import WINDOW

    texts = [t for r in ALL_RULES for t, _ in r.examples]
    for path in real_repo.record_paths():
        data = real_repo.read(path).data
        texts += [v for k, v in data.items() if k in ("name", "model", "unit", "methodology", "notes") and isinstance(v, str)]  # fmt: skip
    reach = {}
    for r in ALL_RULES:
        for text in texts if r.needles else ():
            low = text.casefold()
            for m in r.pattern.finditer(text) if len(low) == len(text) else ():
                a, b = m.span()
                near = [
                    max(i - a, b - i - len(n))
                    for n in r.needles
                    for i in range(a, b)
                    if low.startswith(n, i) and i + len(n) <= b
                ]
                assert near, (r.name, text[a:b])  # a match without a needle: the gate is wrong
                reach[r.name] = max(reach.get(r.name, 0), min(near))
    assert max(reach.values()) <= WINDOW // 2, sorted(reach.items(), key=lambda kv: -kv[1])[:3]


def test_8192_tokens_is_not_a_batch() -> None:
    from roofbot.core.rules import BATCH_RULES

    text = "Decode figure is tg8192 = 8192 generated tokens, so it is steady-state decode"
    assert {r.read(m) for r in BATCH_RULES for m in r.pattern.finditer(text)} == {1}  # tg: batch 1


def test_a_size_in_a_comparison_sentence_is_not_the_model_run(fixtures_repo) -> None:  # type: ignore[no-untyped-def]
    from roofbot.core.check import check_record

    rec = {
        "id": "t", "type": "benchmark", "name": "8B run", "status": "verified", "engine_id": "x",
        "accelerator_ids": ["nvidia-a100-40gb-sxm4"], "model": "Llama 3.1 8B", "format_id": None,
        "metric": "decode_tok_s", "value": 30.0, "unit": "tok/s",
        "methodology": "1x A100, batch size 1, FP16. A 70B model would need 140 GB, 2x more cards.",
        "notes": "Compared with a 70B model at Q4_K_M this is 9x faster.",
    }  # fmt: skip
    r = check_record(rec, "t.json", fixtures_repo.catalogue(), fixtures_repo.config)
    params = dict(r.inputs)["params_b"]
    assert params.value == 8.03 and "data/models/llama-3-1-8b.json" in params.source


NEEDLES = sorted({n for r in ALL_RULES for n in (*r.needles, *r.also)})


@settings(max_examples=300)
@given(st.lists(st.one_of(st.sampled_from(NEEDLES), NOISE), max_size=8).map("".join))
def test_words_and_families_are_the_needles(text: str) -> None:
    """`find` tests a rule's needles as words one by one and families as one search each: the
    same answer as `may_match`; and a family's search, restarted one past each hit (as the
    windows do), stops wherever one of its needles starts, with the longest needle there."""
    low = text.casefold()
    for r in ALL_RULES:
        quick = any(w in low for w in r.words) or any(s(low, 0) for s, _ in r.families)
        assert quick == any(n in low for n in r.needles), (r.name, text)
        family = [n for n in r.needles if n not in r.words]
        want = {
            (i, i + max(len(n) for n in family if low.startswith(n, i)))
            for i in range(len(low))
            if any(low.startswith(n, i) for n in family)
        }
        got = set()
        for search, back in r.families:
            m = search(low, 0)
            while m is not None:
                got.add((m.start() - back, m.end()))
                m = search(low, m.start() + 1)
        assert got == want, (r.name, text)


def test_families_are_what_they_are_for() -> None:
    """Families form where needles share a first letter, never a digit (a family opening
    with a digit class would step along every character), or are a digit then one word."""
    tp = RULES["tp-n"]
    assert tp.words == () and len(tp.families) == 1
    search, back = tp.families[0]
    assert search("batch 1, tp8", 0) is not None and back == 0
    assert search("throughput 12 tok/s", 0) is None
    x = RULES["n-x-part"]  # "0x" ... "9x" and "0 x" ... "9 x": the word, then the digit
    assert x.words == ("×",) and [b for _, b in x.families] == [1, 1]
    assert [s("2x rtx 4090", 0) is not None for s, _ in x.families] == [True, False]
    assert all(s("max context", 0) is None for s, _ in x.families)
    for r in ALL_RULES:
        for w in r.words:
            assert w[0].isdigit() or sum(n[0] == w[0] for n in r.needles) < 3, (r.name, w)


def _matches(
    pattern: re.Pattern[str], text: str
) -> list[tuple[tuple[int, int], tuple[object, ...]]]:
    """Every match's span and groups: what two forms of a pattern must agree on."""
    return [(m.span(), m.groups()) for m in pattern.finditer(text)]


def _lookbehind_first(pattern: str) -> str:
    """Undo `rules._literal_first` for numbers, the written form of a digit-first one: `(\\d(?<!X\\d)\\d*` -> `(?=\\d)(?<!X)(\\d+`."""
    return re.sub(r"\(\\d\(\?<!(\[[^\]]*\])\\d\)\\d\*", r"(?=\\d)(?<!\1)(\\d+", pattern)


DIGIT_FIRST = [r for r in ALL_RULES if _lookbehind_first(r.pattern.pattern) != r.pattern.pattern]


@pytest.fixture(scope="module")
def real_texts(real_repo) -> list[str]:  # type: ignore[no-untyped-def]
    out = [t for r in ALL_RULES for t, _ in r.examples] + [t for r in ALL_RULES for t in r.rejects]
    for path in real_repo.record_paths():
        data = real_repo.read(path).data
        out += [v for v in data.values() if isinstance(v, str)]
    return out


@given(st.text(), st.integers(min_value=0, max_value=40))
def test_a_window_ends_where_the_word_ends(text: str, at: int) -> None:
    """`\\S*` stops where `str.isspace` first holds, on any text (the windows' word end)."""
    from roofbot.core.extract import _word_end

    at = min(at, len(text))
    end = at
    while end < len(text) and not text[end].isspace():
        end += 1
    word = _word_end(text, at)
    assert word is not None and word.end() == end


ASCII_PHRASES = [p for p in PHRASES if p.isascii()]
ASCII_NOISE = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40)


@settings(max_examples=300)
@given(st.lists(st.one_of(st.sampled_from(ASCII_PHRASES), ASCII_NOISE), max_size=6).map(" ".join))
def test_on_a_plain_text_each_rules_ascii_pattern_reads_as_its_unicode_one(text: str) -> None:
    from roofbot.core.extract import plain

    if not plain(text):
        return
    for r in ALL_RULES:
        assert _matches(r.ascii_pattern(), text) == _matches(r.pattern, text), (r.name, text)


def test_the_real_plain_texts_read_the_same_both_ways(real_texts: list[str]) -> None:
    from roofbot.core.extract import plain

    texts = [t for t in real_texts if plain(t)]
    assert len(texts) > 0.9 * len(real_texts)  # the users write ASCII: the fast path is the path
    for r in ALL_RULES:
        for text in texts:
            assert _matches(r.ascii_pattern(), text) == _matches(r.pattern, text), r.name


def test_texts_that_are_not_plain_are_read_with_the_unicode_patterns() -> None:
    """Where the two would differ, find reads as the Unicode pattern does: a letter beyond
    ASCII is a word character, and U+001C-U+001F are spaces to `str.isspace` only."""
    from roofbot.core.extract import find, plain

    gpus = RULES["n-gpus"]
    assert gpus.ascii_pattern().search("é2 GPUs") and not gpus.pattern.search("é2 GPUs")
    assert not plain("é2 GPUs") and find((gpus,), {"f": "é2 GPUs"}, ("f",)) == []
    batch = RULES["batch-size-n"]
    sep = "batch size\x1c64"
    assert batch.pattern.search(sep) and not batch.ascii_pattern().search(sep)
    assert not plain(sep) and [h.value for h in find((batch,), {"f": sep}, ("f",))] == [64]
    assert plain("8x H100, batch size 64, 8 GPUs")


def _as_written(pattern: str) -> str:
    """Undo `rules._literal_first`: `tensor(?<!\\wtensor)` -> `\\btensor`, and
    `-sm(?<![\\w-]-sm)` -> `(?<![\\w-])-sm`."""
    pattern = re.sub(r"(-?[A-Za-z][A-Za-z0-9]*)\(\?<!(\[[^\]]*\])\1\)", r"(?<!\2)\1", pattern)
    return re.sub(r"([A-Za-z][A-Za-z0-9]*)\(\?<!\\w\1\)", r"\\b\1", pattern)


LITERAL_FIRST = [r for r in ALL_RULES if _as_written(r.pattern.pattern) != r.pattern.pattern]


def test_literal_first_is_a_round_trip_of_the_written_form() -> None:
    from roofbot.core.rules import _literal_first

    written = [
        r"(?<![\w-])-sm\s+tensor\b|\btensor[- ](?:parallel\w*|split)\b|(?<![\w-])TP\s*=?\s*\d+\b",
        r"(?<!not )\bper[- ](?:user|request|sequence)\b|\bone user\b",
        r"\bweights?\s*(?:are|is)",  # a quantifier follows: left as written
        r"(?<![\w-])(Q[2-8]_(?:K_[SML]|K|[01]))",  # no literal follows: left as written
    ]
    for w in written:
        assert _as_written(_literal_first(w)) == w
    assert _literal_first(written[2]) == written[2] and _literal_first(written[3]) == written[3]
    assert _literal_first(r"\btensor\b") == r"tensor(?<!\wtensor)\b"
    digits = r"(?=\d)(?<![\w.])(\d+(?:\.\d+)?)\s?B"
    assert _literal_first(digits) == r"(\d(?<![\w.]\d)\d*(?:\.\d+)?)\s?B"
    assert _lookbehind_first(_literal_first(digits)) == digits


def _written_forms() -> list[tuple[Rule[object], re.Pattern[str]]]:
    """Each rule compiled other than it reads in rules.py, beside the form it reads in: the
    numbers written digit first, and the words `_re` moves literal first."""
    out = []
    for r in ALL_RULES:
        written = _lookbehind_first(_as_written(r.pattern.pattern))
        if written != r.pattern.pattern:
            out.append((r, re.compile(written, r.pattern.flags)))
    return out


WRITTEN_FORMS = _written_forms()


def test_compiled_forms_read_as_written(real_texts: list[str]) -> None:
    assert len(DIGIT_FIRST) >= 8 and len(LITERAL_FIRST) >= 20 and len(WRITTEN_FORMS) >= 28
    for r, written in WRITTEN_FORMS:
        for text in real_texts:
            assert _matches(r.pattern, text) == _matches(written, text), r.name


DIGITS_NEAR_WORDS = st.from_regex(r"[\w.~ ]?\d{1,3}[x×B ]?", fullmatch=True)


@settings(max_examples=400)
@given(st.lists(st.one_of(st.sampled_from(PHRASES), NOISE, st.sampled_from(NEEDLES), DIGITS_NEAR_WORDS), max_size=8).map("".join))  # fmt: skip
def test_compiled_forms_read_as_written_on_arbitrary_text(text: str) -> None:
    for r, written in WRITTEN_FORMS:
        assert _matches(r.pattern, text) == _matches(written, text), (r.name, text)
