"""The hardware a figure ran on: the part, how many of them, how they split the model, and the
memory bandwidth each one streams."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from roofbot.core.catalogue import Accelerator, Catalogue
from roofbot.core.config import Pin
from roofbot.core.provenance import Basis, Input
from roofbot.core.reader.reading import Reading, lowered
from roofbot.core.reader.rule import Kind
from roofbot.core.reader.vocab.devices import ONE_NAMED
from roofbot.core.reader.vocab.systems import systems_in
from roofbot.core.results import Message
from roofbot.core.specificity import Choice, choose, pinned

LLAMA_CPP = frozenset({"llama-cpp", "llamacpp", "llama.cpp"})


@dataclass
class Context:
    """What one record's resolution reads, and the messages it leaves."""

    record: Mapping[str, Any]
    catalogue: Catalogue
    pins: Mapping[str, Pin]
    reading: Reading
    messages: list[Message] = field(default_factory=list)
    moe_unbounded: bool = False  # a mixture of experts whose active share is stated nowhere

    def note(self, text: str, field_name: str | None = None, level: str = "warning") -> None:
        self.messages.append(Message(level, text, field_name))

    def pin(self, key: str) -> Input[Any] | None:
        return pinned(self.pins, key)


@dataclass(frozen=True)
class Part:
    """The resolved part and its provenance; `other` a part the text names instead."""

    acc: Accelerator | None
    input: Input[str] | None
    other: Accelerator | None = None
    why: str | None = None


def _named_parts(ctx: Context) -> list[Accelerator]:
    """The catalogue parts the name, model and methodology name for this run."""
    text = " | ".join(ctx.reading.this_run.get(f, "") for f in ("name", "model", "methodology"))
    systems = " | ".join(s.part for s, _ in systems_in(lowered(text)))
    return ctx.catalogue.match_accelerators(f"{text} | {systems}" if systems else text)


def _text_names_another(
    acc: Accelerator, named: list[Accelerator]
) -> tuple[Accelerator | None, str | None]:
    """The part the text names instead of (or beside) `acc`, and why that matters."""
    others = [a for a in named if a.id != acc.id]
    if others and len(others) == len(named):
        other = max(others, key=lambda a: a.bandwidth_gbps or 0.0)
        return (
            other,
            f"the text names {other.name} ({other.id}); accelerator_ids resolves to {acc.id}",
        )
    mixed = [a for a in others if a.bandwidth_gbps != acc.bandwidth_gbps]
    if mixed:
        other = max(mixed, key=lambda a: a.bandwidth_gbps or 0.0)
        return (
            other,
            f"the text names {other.name} ({other.id}) beside {acc.id}: a mixed set of parts",
        )
    return None, None


def part(ctx: Context) -> Part:
    if p := ctx.pin("accelerator"):
        acc = ctx.catalogue.accelerators.get(str(p.value))
        if acc is None:
            ctx.note(f"pinned accelerator {p.value!r} is not in the catalogue", None, "error")
            return Part(None, None)
        return Part(acc, Input(acc.id, f"pin -> {acc.path}", Basis.PIN))
    ids = ctx.record.get("accelerator_ids")
    ids = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
    named = _named_parts(ctx)
    for i in ids:
        acc = ctx.catalogue.accelerators.get(i)
        if acc is None:
            ctx.note(f"accelerator_ids: {i!r} does not resolve in the catalogue", "accelerator_ids")
            continue
        if len(set(ids)) > 1:
            ctx.note(f"accelerator_ids lists {len(set(ids))} parts; using {acc.id}")
        src = Input(acc.id, f"accelerator_ids -> {acc.path}", Basis.FIELD)
        return Part(acc, src, *_text_names_another(acc, named))
    if not named:
        return Part(None, None)
    best = max(named, key=lambda a: a.bandwidth_gbps or 0.0)
    if len(named) == 1:
        return Part(best, Input(best.id, f"the text names {best.name}", Basis.CATALOGUE))
    names = ", ".join(a.name for a in named)
    why = None
    if len({a.bandwidth_gbps for a in named}) > 1:
        why = f"the text names several parts ({names}); the one with the most bandwidth is used"
    return Part(
        best, Input(best.id, f"the text names {names}; took {best.name}", Basis.ASSUMED), None, why
    )


def _one_device(ctx: Context, acc: Accelerator | None) -> Input[int]:
    """No count stated: 1, read where a stated memory size is one device's, else assumed."""
    if acc is not None and acc.vram_gb:
        for m in ctx.reading.stated(Kind.DEVICE_MEMORY, ("name", "unit", "methodology")):
            if abs(m.value - acc.vram_gb) <= 0.05 * acc.vram_gb:
                return Input(1, f"{m.source}: one {acc.name}'s {acc.vram_gb:g} GB", Basis.TEXT)
    return Input(1, "no accelerator count in the text (assumed 1)", Basis.ASSUMED)


_DP_IN_TP = re.compile(r"dp[- _]attention|--enable-dp-attention")
"""SGLang's data-parallel attention: its replicas live inside the tensor group, not beside it."""


@dataclass(frozen=True)
class Layout:
    """The parallel degrees the text states (tensor, pipeline, data), each with its mention."""

    tp: Choice | None
    pp: Choice | None
    dp: Choice | None
    dp_in_tp: bool = False

    @property
    def beside_tp(self) -> int:
        """The pipeline degree times the data degree (data-parallel attention adds none)."""
        dp = 1 if self.dp is None or self.dp_in_tp else max(self.dp.value, 1)
        return max(self.pp.value if self.pp else 1, 1) * dp

    @property
    def devices(self) -> int:
        """The devices the layout spans: tp x pp x dp."""
        return max(self.tp.value if self.tp else 1, 1) * self.beside_tp

    @property
    def tensor_only(self) -> bool:
        """An undisputed tensor degree above one and no pipeline ("pipeline size 1" is none)."""
        tp, pp = self.tp, self.pp
        return tp is not None and tp.value > 1 and not tp.rivals and (pp is None or pp.value <= 1)

    def source(self) -> str:
        parts = [
            f"{name} {c.value} ({c.mention.source})"
            for name, c in (("tp", self.tp), ("pp", self.pp), ("dp", self.dp))
            if c is not None
        ]
        dp = (
            "; data-parallel attention: its replicas are inside the tensor group"
            if (self.dp_in_tp and self.dp is not None)
            else ""
        )
        return " x ".join(parts) + f" = {self.devices} devices{dp}"


def layout(ctx: Context) -> Layout | None:
    """The tensor, pipeline and data degrees the text states, or None where it states none."""
    tp, pp, dp = (
        choose(ctx.reading, k) for k in (Kind.TENSOR_DEGREE, Kind.PIPELINE_DEGREE, Kind.DATA_DEGREE)
    )
    if tp is None and pp is None and dp is None:
        return None
    text = " ".join(ctx.reading.this_run.get(f, "") for f in ("name", "model", "methodology"))
    return Layout(tp, pp, dp, _DP_IN_TP.search(text.lower()) is not None)


def count(ctx: Context, acc: Accelerator | None) -> Input[int]:
    if p := ctx.pin("count"):
        return p
    per = ctx.reading.stated(Kind.PER_DEVICE, ("unit",))
    if per:
        return Input(1, f"{per[0].source} (the figure is one device's)", Basis.TEXT)
    others = replace(
        ctx.reading, mentions=tuple(m for m in ctx.reading.mentions if m.rule != ONE_NAMED)
    )
    chosen = choose(others, Kind.COUNT) or choose(ctx.reading, Kind.COUNT)  # "an H100, TP=8"
    lay = layout(ctx)
    weak = chosen is None or (chosen.mention.weak and chosen.value < (lay.devices if lay else 1))
    if lay is not None and lay.devices > 1 and weak:
        return Input(lay.devices, lay.source(), Basis.TEXT)
    if chosen is None:
        return _one_device(ctx, acc)
    if chosen.rivals:
        ctx.note(
            f"the text states {chosen.value} and "
            + ", ".join(str(m.value) for m in chosen.rivals)
            + " accelerators at the same level: the larger count is taken, as an assumption"
        )
    return chosen.to_input("accelerator count")


def tensor_degree(ctx: Context, n: Input[int]) -> Input[int] | None:
    """How many devices one sequence streams its weights through at a time: the stated
    tensor-parallel degree, or the devices over the stated pipeline and data degrees. None
    where the text states no degree (the split then decides)."""
    lay = layout(ctx)
    if n.value <= 1 or lay is None:
        return None
    if lay.tp is not None and lay.tp.value >= 1:
        stated = lay.tp.to_input("a tensor-parallel degree")  # assumed where two disagree
        return Input(min(lay.tp.value, n.value), stated.source, stated.basis)
    if lay.beside_tp > 1 and n.value % lay.beside_tp == 0:
        return Input(n.value // lay.beside_tp, f"{n.value} devices / ({lay.source()})", Basis.TEXT)
    return None


def parallelism(ctx: Context, n: Input[int]) -> Input[str] | None:
    if p := ctx.pin("parallelism"):
        return p
    if n.value <= 1:
        return None
    lay = layout(ctx)
    if lay is not None and lay.tensor_only and lay.tp is not None:
        return Input("tensor", lay.tp.mention.source, Basis.TEXT)
    chosen = choose(ctx.reading, Kind.PARALLELISM, lenient=lambda v: v == "tensor")
    if chosen is not None:
        return chosen.to_input("split")
    if ctx.reading.text("engine_id").lower().replace("_", "-") in LLAMA_CPP:
        return Input(
            "pipeline",
            "engine_id: llama-cpp, whose multi-GPU default is a layer split "
            "(assumed: the text does not say -sm tensor)",
            Basis.ASSUMED,
        )
    return None


@dataclass(frozen=True)
class Bandwidth:
    """The bandwidth used, the other reading where the text disagrees, and why."""

    used: Input[float] | None
    other: Input[float] | None = None
    why: str | None = None


def bandwidth(ctx: Context, found: Part) -> Bandwidth:
    if p := ctx.pin("bandwidth_gbps"):
        return Bandwidth(p)
    acc = found.acc
    tiers: tuple[tuple[str, ...], ...] = (("name", "model"), ("unit",), ("methodology",))
    if acc is None:  # the notes quote other systems: read only where nothing else says
        tiers += (("notes",),)
    stated = choose(ctx.reading, Kind.BANDWIDTH, tiers)
    text_bw = stated.to_input("a bandwidth") if stated else None
    if acc is None or acc.bandwidth_gbps is None or found.input is None:
        if acc is not None:
            ctx.note(f"{acc.id} has no memory_bandwidth_gbps")
        return Bandwidth(text_bw)
    basis = Basis.ASSUMED if found.input.assumed else Basis.CATALOGUE
    cat = Input(acc.bandwidth_gbps, f"{acc.path}: memory_bandwidth_gbps", basis)
    other, why = None, found.why
    if text_bw is not None and abs(text_bw.value - acc.bandwidth_gbps) > 0.05 * acc.bandwidth_gbps:
        other = Input(text_bw.value, text_bw.source, Basis.TEXT)
        why = (
            f"the text states {text_bw.value:g} GB/s for the device ({text_bw.source}), "
            f"{acc.id} has {acc.bandwidth_gbps:g} GB/s"
        )
    elif found.other is not None and found.other.bandwidth_gbps is not None:
        o = found.other
        other = Input(
            o.bandwidth_gbps,
            f"{o.path}: memory_bandwidth_gbps",
            Basis.CATALOGUE,
        )
    if other is not None and other.value > cat.value:
        return Bandwidth(other, cat, why)
    return Bandwidth(cat, other, why)
