"""Denial: the words that say a thing was not so, for every input kind alike.

Each trigger is one line of data: its words, the side of them it denies (`BEFORE`: the words
after it in its clause, "without MTP"; `AFTER`: the words before it in its clause, "MTP off"),
and a real phrase with the word it denies. A trigger after a colon denies the clause the colon
ends ("speculative decoding: disabled"). A denial is certain over the words next to it (at most
`WINDOW` words between); further off in its clause it is unsure, and the verdict weighs both
readings. Its reach stops at a word that starts another statement ("but", "with", "while"),
so "8x H100 with MTP off" denies MTP, not the count, and at a word that sets a term in its
setting ("w/o MTP on 1x H100"). Adding a phrasing of denial is one line
here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from roofbot.core.reader.rule import Cue, Scope, Stance, rx


class Side(Enum):
    BEFORE = "before the term: denies the rest of its clause"
    AFTER = "after the term: denies its clause up to the trigger"


@dataclass(frozen=True)
class Trigger:
    """`words` (a pattern, lower case) deny on `side`; in `example` they deny `term`."""

    words: str
    side: Side
    example: str
    term: str


WINDOW = 3
"""Words that may stand between a trigger and what it denies, for the denial to be certain."""

STOPS = r"(?:but|with|while|whereas|although|though|except|however|plus|但)\b"
"""Words that start another statement: a denial's reach ends there."""

SETTING = r"(?<![\w/-])(?:on|at|across|per|for|using)(?![\w/-])"
"""Words that set a term in its setting: a denial's reach ends at one that follows a term
("without MTP on 1x H100", "no speculative decoding at batch 1")."""

_DONE = r"(?:enabled|used|stated|specified|disclosed|published|given|reported|on|active)\b"
_NOT_DONE = rf"(?:not|never)\s+{_DONE}"
_STATE = r"(?:all\s+)?(?:unknown|absent|omitted|disabled|off)\b"
_ALONE = r"\b(?=\s*(?:[,.;)]|$))"
_AUX = rf"\s+(?:{_NOT_DONE}|{_STATE})"

B, A = Side.BEFORE, Side.AFTER
TRIGGERS: tuple[Trigger, ...] = (
    Trigger(r"not(?<!\wnot)\b(?!-?\s*(?:only|just)\b)", B, "never names the served numeric format - not FP8, not INT8", "FP8"),
    Trigger(r"never\b", B, "the weights were never quantized to FP8", "FP8"),
    Trigger(r"no(?<!\wno)\b(?!\.)", B, "no explicit fp8/w8a8 flag", "fp8"),
    Trigger(r"no(?<!\wno)\b(?!\.)", B, "Baseline (no MTP): 10.9 tok/s decode", "MTP"),
    Trigger(r"without\b", B, "run without speculative decoding", "speculative"),
    Trigger(r"w/o(?<!\ww/o)", B, "greedy decode w/o MTP on 1x H100", "MTP"),
    Trigger(r"neither\b", B, "neither EAGLE nor MTP was used", "EAGLE"),
    Trigger(r"nor(?<!\wnor)\b", B, "neither EAGLE nor MTP was used", "MTP"),
    Trigger(r"non(?<!\wnon)\b", B, "plain non-speculative decoding", "speculative"),
    Trigger(r"disabl(?:e|ing)\b", B, "after disabling MTP in the server config", "MTP"),
    Trigger(r"(?:ha(?:ve|s|d)|we)\s+disabled\b", B, "we have disabled MTP now", "MTP"),
    Trigger(r"(?:turn|switch)(?:ed|ing)?\s+off\b", B, "we turned off MTP for this run", "MTP"),
    Trigger(r"未", B, "未启用 MTP，单卡 L40S", "MTP"),
    Trigger(r"关闭", B, "最终验证配置为关闭 MTP (MTP_K=0)", "MTP"),
    Trigger(r"禁用", B, "禁用 MTP 投机解码", "MTP"),
    Trigger(r"(?:was(?<!\wwas)|were(?<!\wwere)|is(?<!\wis)|are(?<!\ware))" + _AUX, A, "Multi-token prediction (MTP) was NOT enabled for this run", "MTP"),
    Trigger(rf"(?:not|never)\s+been\s+{_DONE}", A, "MTP has not been enabled for this run", "MTP"),
    Trigger(_NOT_DONE, A, "EAGLE-3 speculative decoding not enabled on this server", "EAGLE-3"),
    Trigger(rf"unknown{_ALONE}", A, "tensor-parallel degree unknown", "tensor-parallel"),
    Trigger(rf"unstated{_ALONE}", A, "tensor-parallel degree unstated", "tensor-parallel"),
    Trigger(r"disabled\b", A, "speculative decoding: disabled", "speculative"),
    Trigger(r"off(?<![\w-]off)\b(?!-|\s+(?:the\s+shelf|by)\b)", A, "1x L40S, MTP off", "MTP"),
    Trigger(r"off(?<![\w-]off)\b(?!-|\s+(?:the\s+shelf|by)\b)", A, "MTP=off, concurrency 1", "MTP"),
    Trigger(rf"(?:none(?<!\wnone)|false(?<!\wfalse)|no(?<!\wno)){_ALONE}", A, "speculative decoding: none", "speculative"),
    Trigger(r"关闭", A, "MTP：关闭", "MTP"),
    Trigger(r"未(?:启用|开启|使用)", A, "MTP 未启用", "MTP"),
)  # fmt: skip
"""Every word or phrase of denial the reader knows, each beside a real phrase (a trigger may
have a line for each phrasing it is known in)."""

LEAVES: tuple[tuple[str, str], ...] = (
    ("PER-REQUEST decode throughput at batch 1: -p 0 (no prompt) -n 64", "batch 1"),
    ("Figure is AGGREGATE output tokens/s per GPU, not per-request.", "AGGREGATE"),
    ("Single machine, single user, no batching.", "single user"),
    ("TP=8 was used, batch size 64 was not", "TP=8"),
    ("8x H100 SXM5 with MTP off", "8x"),
    ("2x RTX 3090, an off-the-shelf box", "2x"),
    ("the 2x RTX 3090 trade-off", "2x"),
    ("FP8 weights, not only FP8 activations", "FP8"),
    ("I tested serving w/wo mtp on 2x H20", "mtp"),
    ("greedy decode w/o MTP on 1x H100", "1x"),
    ("no speculative decoding at batch size 1", "batch size 1"),
)
"""Real phrases with a word no trigger may deny."""


def _cue(name: str, side: Side, scope: Scope) -> Cue:
    mine = [t for t in TRIGGERS if t.side is side]
    words = dict.fromkeys(t.words for t in mine)  # a trigger may stand beside several phrases
    return Cue(
        name,
        Stance.DENIED,
        rx("|".join(f"(?:{w})" for w in words)),
        scope,
        tuple((t.example, t.term) for t in mine),
        LEAVES,
        window=WINDOW,
    )


BEFORE_TERM: Cue = _cue("denial-before", Side.BEFORE, Scope.AHEAD)
AFTER_TERM: Cue = _cue("denial-after", Side.AFTER, Scope.BEHIND)
