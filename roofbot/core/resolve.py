"""Resolving every roofline input of one benchmark record, each with its provenance
(contract section 2). Ambiguity never resolves to the stingier choice: where the text allows
several readings the one giving the higher ceiling is taken, and a default is marked assumed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from roofbot.core import rules as R
from roofbot.core.catalogue import Accelerator, Catalogue
from roofbot.core.config import Pin
from roofbot.core.extract import MAX_TEXT, Hit, TextFields, find, text_fields
from roofbot.core.provenance import Basis, Input
from roofbot.core.results import Message, RateKind
from roofbot.core.units import GB, unit_factor

TOKEN_RATE_METRICS: Mapping[str, RateKind] = {
    "tok_s_per_user": RateKind.PER_SEQUENCE,
    "decode_tok_s": RateKind.PER_SEQUENCE,
    "tps_aggregate": RateKind.AGGREGATE,
    "prefill_tok_s": RateKind.PREFILL,
}

_TOKEN_UNIT = re.compile(r"\btok(?:en)?s?\b|\bt/s\b|tok/s|tps\b", re.IGNORECASE)
_NOT_TOKEN_UNIT = re.compile(
    r"\b[TPG]FLOPS\b|\bTOPS\b|^\s*x\b|\bspeedup\b|\bratio\b|\bmultiple\b|\bJ/tok",
    re.IGNORECASE,
)

# precision words -> the catalogue's `flops.precision` names
_PRECISION = {
    "nvfp4": "fp4",
    "mxfp4": "fp4",
    "fp4": "fp4",
    "fp6": "fp6",
    "fp8": "fp8",
    "bf16": "bf16",
    "fp16": "fp16",
    "fp32": "fp32",
    "int8": "int8",
    "int4": "int4",
    "w8a8": "int8",
    "w4a16": "fp16",
    "w4a8": "fp8",
    "w4a4": "fp4",
}
_PRECISION_BITS = {
    "fp4": 4.0,
    "fp6": 6.0,
    "fp8": 8.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp32": 32.0,
    "int8": 8.0,
    "int4": 4.0,
}
_FP_TWINS = {"fp16": "bf16", "bf16": "fp16", "fp4": "fp4_block_scaled"}
_WA = re.compile(r"\bw(\d+)a(\d+)\b", re.IGNORECASE)
_FIRST_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)")
_ID_MENTION = re.compile(r"(?<![\w-])[a-z0-9]+(?:-[a-z0-9]+(?:\.[a-z0-9]+)*){3,}(?![\w-])")
"""A record id named in text: four or more dash-joined words; a dot only inside a word, so the
full stop after an id that ends a sentence is not taken for part of it."""


def unit_is_token_rate(unit: str) -> bool:
    """The unit's leading quantity is a token rate ("output tokens/s; ENERGY: 0.09 J/token" is;
    "TFLOPS FP16" and "x MULTIPLE of the true tok/s" are not)."""
    tok, other = _TOKEN_UNIT.search(unit), _NOT_TOKEN_UNIT.search(unit)
    return tok is not None and (other is None or tok.start() < other.start())


@dataclass(frozen=True)
class Inputs:
    """Everything the arithmetic needs, each value with where it came from."""

    rate: Input[RateKind]
    count: Input[int]
    part: Input[str] | None = None
    parallelism: Input[str] | None = None
    bandwidth_gbps: Input[float] | None = None
    other_bandwidth_gbps: Input[float] | None = None
    compute_precision: Input[str] | None = None
    peak_tflops: Input[float] | None = None
    batch: Input[int] | None = None
    params_b: Input[float] | None = None
    active_params_b: Input[float] | None = None
    bits_per_weight: Input[float] | None = None
    weight_bytes: Input[float] | None = None
    active_bytes: Input[float] | None = None
    speculative: Input[str] | None = None
    tokens_per_step: Input[float] | None = None
    sparse_only_precision: str | None = None
    variant: str | None = None  # why the part is ambiguous, for hardware-part-variant
    siblings: tuple[str, ...] = ()
    messages: tuple[Message, ...] = ()

    def items(self) -> tuple[tuple[str, Input[Any]], ...]:
        """The resolved inputs in reading order, for reports."""
        names = (
            "rate", "part", "count", "parallelism", "bandwidth_gbps", "other_bandwidth_gbps",
            "compute_precision", "peak_tflops", "batch", "params_b", "active_params_b",
            "bits_per_weight", "weight_bytes", "active_bytes", "speculative", "tokens_per_step",
        )  # fmt: skip
        out: list[tuple[str, Input[Any]]] = []
        for n in names:
            v = getattr(self, n)
            if v is not None:
                out.append((n, v))
        return tuple(out)


@dataclass
class _Resolver:
    record: Mapping[str, Any]
    catalogue: Catalogue
    pins: Mapping[str, Pin]
    text: dict[str, str] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)
    _sizes: list[Hit[tuple[float, float | None]]] | None = None
    _precisions: list[Hit[str]] | None = None

    def pin(self, key: str) -> Input[Any] | None:
        p = self.pins.get(key)
        return Input(p.value, f"pin: {key} = {p.text} (.roofbot.yml)", Basis.PIN) if p else None

    def note(self, text: str, field_name: str | None = None, level: str = "warning") -> None:
        self.messages.append(Message(level, text, field_name))

    # ------------------------------------------------------------ rate and batch
    def batch(self) -> Input[int] | None:
        if p := self.pin("batch"):
            return p
        hits = find(R.BATCH_RULES, self.text, ("unit", "methodology", "name"))
        if not hits:
            return None
        values = {h.value for h in hits}
        if R.UNKNOWN in values:
            unknown = next(h for h in hits if h.value == R.UNKNOWN)
            if len(values) > 1:
                self.note(
                    f"batch is both stated and called unfixed; read as unknown ({unknown.source})"
                )
            return None
        if len(values) > 1:
            self.note(
                "batch stated as "
                + " and ".join(str(v) for v in sorted(values))
                + "; read as unknown: "
                + "; ".join(h.source for h in hits[:3])
            )
            return None
        h = hits[0]
        return Input(h.value, h.source, Basis.TEXT)

    def rate(self, metric: str, batch: Input[int] | None) -> Input[RateKind]:
        kind = TOKEN_RATE_METRICS[metric]
        if metric != "decode_tok_s":
            return Input(kind, f"metric: {metric}", Basis.FIELD)
        agg: list[Hit[str]] = []
        per: list[Hit[str]] = []
        for name in ("unit", "name", "methodology"):  # the first field that says either decides
            agg = find((R.AGGREGATE_RULE,), self.text, (name,))
            per = find((R.PER_USER_RULE,), self.text, (name,))
            if agg or per:
                break
        if agg and not per:
            return Input(RateKind.AGGREGATE, f"metric: decode_tok_s, {agg[0].source}", Basis.TEXT)
        if batch is not None and batch.value > 1 and not per:
            return Input(
                RateKind.AGGREGATE, f"metric: decode_tok_s at batch {batch.value}", Basis.TEXT
            )
        if per:
            return Input(
                RateKind.PER_SEQUENCE, f"metric: decode_tok_s, {per[0].source}", Basis.TEXT
            )
        if batch is not None and batch.value == 1:
            return Input(RateKind.PER_SEQUENCE, "metric: decode_tok_s at batch 1", Basis.TEXT)
        return Input(
            RateKind.PER_SEQUENCE,
            "metric: decode_tok_s; the text states neither a batch nor per-user (assumed one sequence)",
            Basis.ASSUMED,
        )

    # ------------------------------------------------------------ part, count, split
    def part(self) -> tuple[Accelerator | None, Input[str] | None, str | None]:
        """The accelerator, its provenance, and a reason the part is ambiguous, if it is."""
        if p := self.pin("accelerator"):
            acc = self.catalogue.accelerators.get(str(p.value))
            if acc is None:
                self.note(f"pinned accelerator {p.value!r} is not in the catalogue", None, "error")
                return None, None, None
            return acc, Input(acc.id, f"pin -> data/accelerators/{acc.id}.json", Basis.PIN), None
        ids = self.record.get("accelerator_ids")
        ids = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
        for i in ids:
            acc = self.catalogue.accelerators.get(i)
            if acc is not None:
                if len(set(ids)) > 1:
                    self.note(f"accelerator_ids lists {len(set(ids))} parts; using {acc.id}")
                return (
                    acc,
                    Input(
                        acc.id, f"accelerator_ids -> data/accelerators/{acc.id}.json", Basis.FIELD
                    ),
                    None,
                )
            self.note(
                f"accelerator_ids: {i!r} does not resolve in the catalogue", "accelerator_ids"
            )
        for name in ("name and methodology",):
            text = f"{self.text['name']} | {self.text['methodology']}"[:20_000]
            found = self.catalogue.match_accelerators(text)
            if not found:
                continue
            best = max(found, key=lambda a: a.bandwidth_gbps or 0.0)
            if len(found) == 1:
                return best, Input(best.id, f"{name} names {best.name}", Basis.CATALOGUE), None
            names = ", ".join(a.name for a in found)
            variant = (
                f"{name} names several parts ({names}); the one with the most bandwidth is used"
            )
            bws = {a.bandwidth_gbps for a in found}
            return (
                best,
                Input(best.id, f"{name} names {names}; took {best.name}", Basis.ASSUMED),
                (variant if len(bws) > 1 else None),
            )
        return None, None, None

    def one_device(self, acc: Accelerator | None) -> Input[int]:
        """No count in the text: 1, read from a stated memory size that is one device's, else
        assumed."""
        if acc is not None and acc.vram_gb:
            vram = acc.vram_gb
            for h in find((R.ONE_DEVICE_MEMORY_RULE,), self.text, ("name", "unit", "methodology")):
                if abs(h.value - vram) <= 0.05 * vram:
                    return Input(1, f"{h.source}: one {acc.name}'s {vram:g} GB", Basis.TEXT)
        return Input(1, "no accelerator count in the text (assumed 1)", Basis.ASSUMED)

    def count(self, acc: Accelerator | None) -> Input[int]:
        if p := self.pin("count"):
            return p
        per = find((R.PER_DEVICE_RULE,), self.text, ("unit",))
        if per:
            return Input(1, f"{per[0].source} (the figure is one device's)", Basis.TEXT)
        hits = find(R.COUNT_RULES, self.text, ("unit", "name", "methodology"))
        if not hits:
            return self.one_device(acc)
        best = max(hits, key=lambda h: h.value)
        others = sorted({h.value for h in hits} - {best.value})
        if others:
            self.note(
                f"the text names {best.value} and {', '.join(map(str, others))} accelerators; "
                f"the largest count is used"
            )
        return Input(best.value, best.source, Basis.TEXT)

    def parallelism(self, count: Input[int]) -> Input[str] | None:
        if p := self.pin("parallelism"):
            return p
        if count.value <= 1:
            return None
        hits = find(R.PARALLELISM_RULES, self.text, ("unit", "name", "methodology"))
        kinds = {h.value for h in hits}
        if "tensor" in kinds:  # tensor named anywhere: the lenient reading
            h = next(h for h in hits if h.value == "tensor")
            return Input("tensor", h.source, Basis.TEXT)
        if hits:
            return Input(hits[0].value, hits[0].source, Basis.TEXT)
        if self.text["engine_id"].lower().replace("_", "-") in (
            "llama-cpp",
            "llamacpp",
            "llama.cpp",
        ):
            return Input(
                "pipeline",
                "engine_id: llama-cpp, whose multi-GPU default is a layer split "
                "(assumed: the text does not say -sm tensor)",
                Basis.ASSUMED,
            )
        return None

    def bandwidth(
        self, acc: Accelerator | None, part: Input[str] | None
    ) -> tuple[Input[float] | None, Input[float] | None, str | None]:
        """(bandwidth used, the other reading, why they differ)."""
        if p := self.pin("bandwidth_gbps"):
            return p, None, None
        stated = find((R.BANDWIDTH_RULE,), self.text, ("name", "unit", "methodology"))
        if not stated and acc is None:  # notes quote other systems; read them only as a last resort
            stated = find((R.BANDWIDTH_RULE,), self.text, ("notes",))
        text_bw = max(stated, key=lambda h: h.value) if stated else None
        if acc is not None and acc.bandwidth_gbps is not None and part is not None:
            cat = Input(
                acc.bandwidth_gbps,
                f"data/accelerators/{acc.id}.json: memory_bandwidth_gbps",
                Basis.ASSUMED if part.assumed else Basis.CATALOGUE,
            )
            if (
                text_bw is None
                or abs(text_bw.value - acc.bandwidth_gbps) <= 0.05 * acc.bandwidth_gbps
            ):
                return cat, None, None
            txt = Input(text_bw.value, text_bw.source, Basis.TEXT)
            why = (
                f"the text states {text_bw.value:g} GB/s for the device, "
                f"{acc.id} has {acc.bandwidth_gbps:g} GB/s"
            )
            return (cat, txt, why) if acc.bandwidth_gbps >= text_bw.value else (txt, cat, why)
        if acc is not None and acc.bandwidth_gbps is None:
            self.note(f"{acc.id} has no memory_bandwidth_gbps")
        if text_bw is not None:
            return Input(text_bw.value, text_bw.source, Basis.TEXT), None, None
        return None, None, None

    # ------------------------------------------------------------ precision and peak
    def precision(
        self, acc: Accelerator | None
    ) -> tuple[Input[str] | None, Input[float] | None, str | None]:
        """(compute precision, dense peak TFLOPS per device, precision with only sparse rows)."""
        named: list[Hit[str]] = []
        if p := self.pin("compute_precision"):
            named = [Hit(str(p.value).lower(), "pin", p.source)]
        else:
            fmt = self.format_precision()
            if fmt:
                named.append(fmt)
            named += self.precision_words()
        if acc is None or not acc.flops:
            if named:
                prec = _PRECISION.get(named[0].value, named[0].value)
                return Input(prec, named[0].source, Basis.TEXT), None, None
            return None, None, None
        candidates: list[tuple[float, str, Hit[str]]] = []
        sparse_only = None
        for h in named:
            prec = _PRECISION.get(h.value, h.value)
            for q in (prec, _FP_TWINS.get(prec)):
                if q is None:
                    continue
                peak = acc.dense_peak(q)
                if peak is not None:
                    candidates.append((peak, q, h))
                elif acc.has_sparse_only(q):
                    sparse_only = q
        if candidates:
            peak, prec, h = max(candidates, key=lambda c: c[0])
            basis = Basis.PIN if h.rule == "pin" else Basis.TEXT
            return (
                Input(prec, h.source, basis),
                Input(
                    peak,
                    f"data/accelerators/{acc.id}.json: largest dense {prec} row",
                    Basis.CATALOGUE,
                ),
                sparse_only,
            )
        best = acc.best_dense()
        if best is None:
            return None, None, sparse_only
        why = (
            f"{named[0].source} names {named[0].value}, which {acc.id} has no dense row for"
            if named
            else "no compute precision is named"
        )
        return (
            Input(
                best.precision,
                f"{why}; the part's highest dense peak is used (assumed)",
                Basis.ASSUMED,
            ),
            Input(
                best.tflops,
                f"data/accelerators/{acc.id}.json: dense {best.precision} row",
                Basis.ASSUMED,
            ),
            sparse_only,
        )

    def format_precision(self) -> Hit[str] | None:
        fmt = self.record.get("format_id")
        q = self.catalogue.quantization.get(fmt) if isinstance(fmt, str) else None
        if q is None:
            return None
        src = f"format_id -> data/quantization/{q.id}.json"
        blob = f"{q.id} {q.scheme or ''} {q.bits or ''}".lower()
        m = _WA.search(blob)
        if "fp8" in blob:
            return Hit("fp8", "format", src)
        if "fp4" in blob:
            return Hit("fp4", "format", src)
        if m:
            a = int(m[2])
            return Hit(
                {16: "fp16", 8: "int8", 4: "fp4"}.get(a, "fp16"), "format", f"{src}: bits {q.bits}"
            )
        return Hit("fp16", "format", f"{src} (weight-only: computes in FP16)")

    # ------------------------------------------------------------ model and bytes
    def params(self) -> tuple[Input[float] | None, Input[float] | None]:
        total, active = self.pin("params"), self.pin("active_params")
        model_text = self.text["model"]
        if self.several_models():  # the unit's leading clause says which model the value is
            model_text = self.text["unit"].split(";")[0]
        m = self.catalogue.match_model(model_text)
        if m is not None:
            src = f"model -> data/models/{m.id}.json"
            if total is None and m.params_b is not None:
                total = Input(m.params_b, f"{src}: params_b", Basis.CATALOGUE)
            if active is None:
                if m.active_params_b is not None:
                    active = Input(m.active_params_b, f"{src}: active_params_b", Basis.CATALOGUE)
                elif m.architecture == "dense" and total is not None:
                    active = Input(total.value, f"{src}: dense", Basis.CATALOGUE)
            if total is not None and active is not None:
                return total, active
        sizes = self.model_sizes()
        totals = {h.value[0] for h in sizes}
        if len(totals) > 1:  # several models listed: the unit may say which one the value is
            head = {"unit": self.text["unit"].split(";")[0]}
            in_unit = find((R.PARAMS_RULE,), head, ("unit",))
            if len({h.value[0] for h in in_unit}) == 1:
                sizes, totals = in_unit, {in_unit[0].value[0]}
        if total is None and len(totals) == 1:
            total = Input(sizes[0].value[0], sizes[0].source, Basis.TEXT)
        elif total is None and len(totals) > 1:
            self.note(
                "model names "
                + ", ".join(f"{t:g}B" for t in sorted(totals))
                + ": which one ran is not clear",
                "model",
            )
            return None, None
        if active is None:
            act = [h for h in sizes if h.value[1] is not None]
            hits = find((R.ACTIVE_RULE,), self.text, ("model",))
            moe = find((R.MOE_RULE,), self.text, ("model",))
            if act:
                active = Input(float(act[0].value[1] or 0), act[0].source, Basis.TEXT)
            elif hits:
                active = Input(hits[0].value, hits[0].source, Basis.TEXT)
            elif total is not None and not moe and (m is None or m.architecture != "moe"):
                active = Input(total.value, f"{total.source} (dense: no MoE named)", total.basis)
            elif total is not None:
                # active <= total: the total is an upper bound, so a roof from it is a lower
                # bound. A record under it is under the real roof; one over it is only suspect.
                active = Input(
                    total.value,
                    f"{total.source}: a mixture of experts whose active "
                    "parameters are not stated (bounded by the total)",
                    Basis.ASSUMED,
                )
                self.note(
                    "the model is a mixture of experts and its active parameters are not "
                    "stated: its roofs use the total as an upper bound",
                    "model",
                )
        return total, active

    def model_sizes(self) -> list[Hit[tuple[float, float | None]]]:
        """The parameter counts the `model` field names (read once a record)."""
        if self._sizes is None:
            self._sizes = find((R.PARAMS_RULE,), self.text, ("model",))
        return self._sizes

    def precision_words(self) -> list[Hit[str]]:
        """The precisions the text names ("FP8", "W4A16"), for compute and for bits (read
        once a record)."""
        if self._precisions is None:
            self._precisions = find(
                (R.PRECISION_RULE,), self.text, ("model", "unit", "methodology")
            )
        return self._precisions

    def several_models(self) -> bool:
        """`model` lists several models ("Llama 3.2 3B / Phi-3 3.8B / Qwen 2.5 7B")."""
        return len({h.value[0] for h in self.model_sizes()}) > 1

    def bits(self) -> Input[float] | None:
        fmt = self.record.get("format_id")
        if isinstance(fmt, str) and fmt:
            q = self.catalogue.quantization.get(fmt)
            if q is None:
                self.note(
                    f"format_id {fmt!r} does not resolve in data/quantization/: "
                    f"bits per weight are not taken from it",
                    "format_id",
                )
            else:
                b = _bits_of(q.bits)
                if b is not None:
                    return Input(
                        b,
                        f"format_id -> data/quantization/{q.id}.json: bits {q.bits!r}",
                        Basis.CATALOGUE,
                    )
                self.note(f"data/quantization/{q.id}.json: bits {q.bits!r} is not a number of bits")
        named = self.named_format()
        if named is not None:
            return named
        hits = find((R.BITS_RULE,), self.text, ("model", "methodology", "unit"))
        if hits:
            return Input(min(h.value for h in hits), hits[0].source, Basis.TEXT)
        words = self.precision_words()
        widths = [(_PRECISION_BITS.get(_PRECISION.get(h.value, h.value)), h) for h in words]
        widths = [
            (b, h)
            for b, h in widths
            if b is not None and h.value not in ("w8a8", "w4a16", "w4a8", "w4a4")
        ]
        if widths:
            b, h = min(widths, key=lambda w: w[0] or 0.0)
            return Input(float(b or 0), h.source, Basis.TEXT)
        return None

    def named_format(self) -> Input[float] | None:
        """A quantization format named in `model` ("Llama 3.2 3B (Q4_K_M)") that the catalogue
        knows, read as stated. Methodology is not read: it says what a format is *implied* by."""
        for m in R.GGUF_TYPE_RULE.pattern.finditer(self.text["model"]):
            qid = "gguf-" + m[1].lower().replace("_", "-")
            q = self.catalogue.quantization.get(qid)
            b = _bits_of(q.bits) if q else None
            if q is not None and b is not None:
                return Input(
                    b,
                    f"model names {m[1]} -> data/quantization/{q.id}.json: bits {q.bits!r}",
                    Basis.CATALOGUE,
                )
        return None

    def stated_weight_bytes(self) -> Input[float] | None:
        """Weight bytes pinned or stated exactly in the text."""
        if p := self.pin("weight_bytes"):
            return p
        hits = find(R.WEIGHT_SIZE_RULES[:1], self.text, ("model",))
        # notes discuss other models too: read them only when the record is about one model
        fields = ("methodology",) if self.several_models() else ("methodology", "notes")
        hits += find(R.WEIGHT_SIZE_RULES[1:], self.text, fields)
        if not hits:
            return None
        sizes = sorted(
            ((v * unit_factor(u), h) for h in hits for v, u in [h.value]), key=lambda s: s[0]
        )
        n, h = sizes[0]
        if len({s for s, _ in sizes}) > 1:
            self.note(
                "several weight sizes are stated; the smallest is used: "
                + "; ".join(x.source for _, x in sizes[:3])
            )
        return Input(n, f"{h.source} = {n / GB:.4g} GB", Basis.TEXT)

    @staticmethod
    def weight_from_bits(total: Input[float], bits: Input[float]) -> Input[float]:
        n = total.value * 1e9 * bits.value / 8
        return Input(
            n,
            f"params {total.value:g}B x {bits.value:g} bits / 8 = {n / GB:.4g} GB",
            Basis.ASSUMED if total.assumed or bits.assumed else Basis.DERIVED,
        )

    def weight_bound(self) -> Input[float] | None:
        """A measured footprint: an upper bound on the weights (assumed)."""
        bound = find((R.WEIGHT_BOUND_RULE,), self.text, ("methodology", "unit"))
        if not bound:
            return None
        v, u = bound[0].value
        n = v * unit_factor(u)
        return Input(
            n,
            f"{bound[0].source}: at most {n / GB:.4g} GB of weights (a footprint "
            "bounds the weights from above)",
            Basis.ASSUMED,
        )

    def active_bytes(
        self, weight: Input[float] | None, total: Input[float] | None, active: Input[float] | None
    ) -> Input[float] | None:
        if p := self.pin("bytes_per_token"):
            return p
        if weight is None or total is None or active is None:
            return None
        if active.value >= total.value:
            return Input(
                weight.value,
                "weight bytes (dense: every weight is read per token)",
                weight.basis if weight.basis is Basis.ASSUMED else Basis.DERIVED,
            )
        n = weight.value * active.value / total.value
        return Input(
            n,
            f"weight bytes x {active.value:g}/{total.value:g} active = {n / GB:.4g} GB",
            Basis.ASSUMED if weight.assumed or active.assumed else Basis.DERIVED,
        )

    def speculative(self) -> tuple[Input[str] | None, Input[float] | None]:
        hits = find((R.SPECULATIVE_RULE,), self.text, ("name", "model", "unit", "methodology"))
        if not hits:
            return None, None
        spec = Input(hits[0].value, hits[0].source, Basis.TEXT)
        if p := self.pin("tokens_per_step"):
            return spec, p
        tps = find((R.TOKENS_PER_STEP_RULE,), self.text, ("unit", "methodology", "notes"))
        return spec, (Input(tps[0].value, tps[0].source, Basis.TEXT) if tps else None)


def mentioned_ids(text: Mapping[str, str], own: object = None) -> tuple[str, ...]:
    """The record ids a record's unit, methodology and notes name (not its own id `own`), in
    order: the siblings a trap compares it with."""
    found: list[str] = []
    for name in ("unit", "methodology", "notes"):
        # an id has no whitespace and three dashes: only such words are scanned (the
        # pattern's lookarounds see whitespace at a word's edges either way)
        field_text = (text.get(name) or "")[:MAX_TEXT]
        if field_text.count("-") < 3:
            continue
        for word in field_text.split():
            if "-" not in word or word.count("-") < 3:  # `in` first: most words have none
                continue
            for m in _ID_MENTION.finditer(word):
                if m[0] != own and m[0] not in found:
                    found.append(m[0])
    return tuple(found)


def _bits_of(text: str | None) -> float | None:
    if not text:
        return None
    m = _WA.search(text)
    if m:
        return float(m[1])
    n = _FIRST_NUMBER.search(text)
    if n and 1 <= float(n[1]) <= 32:
        return float(n[1])
    return None


def resolve(
    record: Mapping[str, Any],
    catalogue: Catalogue,
    pins: Mapping[str, Pin],
    text: TextFields | None = None,
) -> Inputs:
    """Resolve a token-rate benchmark record's inputs (its metric must be a token rate)."""
    r = _Resolver(record, catalogue, pins, text if text is not None else text_fields(record))
    batch = r.batch()
    rate = r.rate(str(record["metric"]), batch)
    acc, part, variant = r.part()
    count = r.count(acc)
    bw, other_bw, bw_why = r.bandwidth(acc, part)
    precision, peak, sparse_only = r.precision(acc)
    total, active = r.params()
    bits = r.bits()
    weight = r.stated_weight_bytes()
    from_bits = weight is None and total is not None and bits is not None
    if from_bits and total is not None and bits is not None:
        weight = r.weight_from_bits(total, bits)
    if weight is None:
        weight = r.weight_bound()
    spec, tps = r.speculative()
    return Inputs(
        rate=rate,
        count=count,
        part=part,
        parallelism=r.parallelism(count),
        bandwidth_gbps=bw,
        other_bandwidth_gbps=other_bw,
        compute_precision=precision,
        peak_tflops=peak,
        batch=batch,
        params_b=total,
        active_params_b=active,
        bits_per_weight=bits if from_bits else None,
        weight_bytes=weight,
        active_bytes=r.active_bytes(weight, total, active),
        speculative=spec,
        tokens_per_step=tps,
        sparse_only_precision=sparse_only,
        variant=bw_why or variant,
        # the trap compares known batches
        siblings=mentioned_ids(r.text, record.get("id")) if batch is not None else (),
        messages=tuple(r.messages),
    )
