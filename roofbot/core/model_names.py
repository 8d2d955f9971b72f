"""Model names as contributors write them: "Llama 3.1 8B", "llama3.1:8b",
"meta-llama/Llama-3.1-8B-Instruct", "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf" are one name.

A name is read as tokens (maximal runs of letters or of digits, lower case), so case, spaces,
hyphens, dots, underscores, colons and the joins of "llama3"/"llama 3" no longer matter. A
catalogue name stands in a text when its tokens do, in order and contiguous, and the text does
not go on into a finer version ("DeepSeek-V3" in "DeepSeek-V3.1") or another variant
("DeepSeek-V2" in "DeepSeek-V2-Lite"). The sizes a name states ("8B", "30B-A3B", "350M",
"1T", "8x7B") are read here too: they tell a matched model of another size from the right one,
and give the parameters of a model the catalogue lacks."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")

FILLER: dict[str, str] = {
    "instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "chat": "TinyLlama-1.1B-Chat-v1.0",
    "it": "gemma-3-4b-it",
    "coder": "Qwen3-Coder-30B-A3B-Instruct (the Qwen3-30B-A3B shape)",
    "hf": "Llama-2-7b-chat-hf",
}
"""Words naming a tuning of the same weights' shape: skipped on both sides, so a variant
matches its catalogued base (the parameter count is the same)."""

OTHER_VARIANT: dict[str, str] = {
    "lite": "DeepSeek-V2-Lite (15.7B, not DeepSeek-V2's 236B)",
    "air": "GLM-4.5-Air (106B, not GLM-4.5's 355B)",
    "distill": "DeepSeek-R1-Distill-Qwen-14B (a 14B student, not R1)",
    "mini": "GPT-4.1 mini",
    "nano": "GPT-4.1 nano",
    "small": "Mistral Small 3.1",
    "medium": "Mistral Medium 3",
    "large": "Mistral Large 2",
    "tiny": "Granite 4.0 H Tiny",
    "flash": "GLM-4.7-Flash (31B, not GLM-4.7)",
    "pro": "DeepSeek-V4-Pro",
    "turbo": "Whisper large-v3-turbo",
    "lightning": "MiniMax-M1-Lightning",
    "vl": "Qwen3-VL-30B-A3B",
    "vision": "Llama-3.2-11B-Vision",
}
"""Words that, right after a catalogue name, make the text name another model."""

_DECIMAL_P = re.compile(r"(?<=\d)p(?=\d)")  # "qwen-1p5b": this repository's ids spell 1.5 so
_WORD = re.compile(r"[a-z0-9]+")
_RUN = re.compile(r"[a-z]+|[0-9]+")
_JOINS = frozenset({".", "-", "_"})


@dataclass(frozen=True)
class Token:
    text: str
    word: str  # the separator-delimited word it came from ("3" of "v3", "1" of "3.1")
    joined: bool = False  # the word follows the previous one with no space ("3.1", "V2-Lite")


def tokens(text: str) -> tuple[Token, ...]:
    """ "Qwen2.5:72b-instruct-q4_K_M" -> qwen 2 5 72 b q 4 k m (filler words skipped)."""
    out: list[Token] = []
    lowered = _DECIMAL_P.sub(".", text.lower())
    end = None
    for m in _WORD.finditer(lowered):
        w = m[0]
        joined = end is not None and lowered[end : m.start()] in _JOINS
        end = m.end()
        if w in FILLER:
            continue
        out.extend(Token(r, w, joined and i == 0) for i, r in enumerate(_RUN.findall(w)))
    return tuple(out)


def _goes_on(key: tuple[str, ...], rest: tuple[Token, ...]) -> bool:
    """The text after a matched name makes it another model: a finer version after a name
    ending in a number ("V3" then ".1"; not "DeepSeek-V3, 8 GPUs"), or a variant word
    ("-Lite", "-Air")."""
    if not rest or rest[0].word != rest[0].text:
        return False
    nxt = rest[0]
    if nxt.joined and key[-1].isdigit() and nxt.text.isdigit() and len(nxt.text) <= 2:
        return True
    return nxt.text in OTHER_VARIANT


@dataclass(frozen=True)
class Hit(Generic[V]):
    key: tuple[str, ...]
    item: V

    @property
    def length(self) -> int:
        return sum(len(t) for t in self.key)


class NameIndex(Generic[V]):
    """Names as token tuples, indexed by their first token: finding every name that stands in
    a text costs one dictionary look-up per token."""

    def __init__(self, pairs: Iterable[tuple[str, V]]) -> None:
        self._by_first: dict[str, list[tuple[tuple[str, ...], V]]] = {}
        for name, item in pairs:
            key = tuple(t.text for t in tokens(name))
            if sum(len(t) for t in key) < 3:  # "o3" alone would stand in too many texts
                continue
            entries = self._by_first.setdefault(key[0], [])
            if (key, item) not in entries:
                entries.append((key, item))

    def find(self, text: str) -> list[Hit[V]]:
        toks = tokens(text)
        words = tuple(t.text for t in toks)
        out = []
        for i, w in enumerate(words):
            for key, item in self._by_first.get(w, ()):
                end = i + len(key)
                if words[i:end] == key and not _goes_on(key, toks[end:]):
                    out.append(Hit(key, item))
        return out


@dataclass(frozen=True)
class NamedSize:
    """A size a name states: total parameters in billions, the active ones where it says
    ("30B-A3B", "31B-A3"), and the words it was read from."""

    total: float
    active: float | None
    quote: str

    @property
    def places(self) -> int:
        """Significant decimals: "6.74 B" is an exact count where "7B" is a nominal size."""
        number = self.quote.split()[0].rstrip("bBmMT")
        return len(number.split(".")[1]) if "." in number else 0


_SIZE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?) ?([bBmMT])(?![a-zA-Z])"
    r"(?:[-_. ]?[aA](\d+(?:\.\d+)?)[bB]?(?![a-zA-Z\d]))?"
)
_SCALE = {"b": 1.0, "m": 0.001, "t": 1000.0}
_EXPERTS = re.compile(r"(?<![\w.])(\d+)x(\d+(?:\.\d+)?)[bB](?![a-zA-Z])")


def name_sizes(text: str) -> tuple[NamedSize, ...]:
    """ "Qwen3-30B-A3B" -> 30 (3 active); "llama3.2:3b" -> 3; "LFM2.5 350M" -> 0.35;
    "Kimi K2 1T" -> 1000. "8x7B" is no total (Mixtral 8x7B is 46.7B): see expert_sizes."""
    out = []
    for m in _SIZE.finditer(text):
        scale = _SCALE[m[2].lower()]
        active = float(m[3]) * (1.0 if scale >= 1 else scale) if m[3] else None
        out.append(NamedSize(float(m[1]) * scale, active, m[0].strip()))
    return tuple(out)


def expert_sizes(text: str) -> tuple[tuple[int, float], ...]:
    """ "Mixtral 8x7B" -> ((8, 7.0),): experts x each expert's nominal size."""
    return tuple((int(m[1]), float(m[2])) for m in _EXPERTS.finditer(text))


def close(a: float, b: float, within: float = 1.35) -> bool:
    """Two sizes of one model: a nominal size and the exact count ("7B" and 6.74, "2B" and
    2.61) differ by less than a third; another size of a family differs by more."""
    return max(a, b) / min(a, b) <= within


def sizes_agree(text: str, own: str, params_b: float | None, active_b: float | None) -> bool:
    """The sizes `text` states fit a model of these figures, or the sizes its own name
    (`own`) states. A text stating no size fits any model."""
    sizes, experts = name_sizes(text), expert_sizes(text)
    if not (sizes or experts) or not (params_b or active_b):
        return True
    mine = {s.total for s in name_sizes(own)}
    for s in sizes:
        if s.total in mine or (params_b and close(s.total, params_b)):
            return True
        # a mixture named by its active share ("Llama-4-Scout-17B-16E"): that share, closely
        if active_b and active_b != params_b and close(s.total, active_b, 1.1):
            return True
    return any(params_b and close(n * each, params_b) for n, each in experts)


def one_size(text: str) -> NamedSize | None:
    """The one model size a name states: a single size, or a nominal size beside its exact
    count ("llama 7B Q8_0 | 6.67 GiB | 6.74 B" -> 6.74). None when it states none, or sizes
    of different models."""
    sizes = name_sizes(text)
    if not sizes or any(not close(a.total, b.total) for a in sizes for b in sizes):
        return None
    best = max(sizes, key=lambda s: (s.places, s.active is not None))
    active = next((s.active for s in sizes if s.active is not None), None)
    return NamedSize(best.total, active, best.quote)
