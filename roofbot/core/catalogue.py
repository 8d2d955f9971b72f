"""The repository's own catalogue (accelerators, models, quantization formats, gotchas) as
plain data, and the lookups the resolver needs. Built from already-parsed JSON objects, each
with the path of the file it came from: provenance names that file, wherever the repository's
catalogue globs keep it."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Generic, TypeVar

from roofbot.core.config import DEFAULT_CATALOGUE
from roofbot.core.model_aliases import ALIASES
from roofbot.core.model_names import NameIndex, sizes_agree

V = TypeVar("V")

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """ "Qwen3.5 35B-A3B (MoE)" -> "qwen3-5-35b-a3b-moe": the shape of this repository's ids."""
    return _SLUG.sub("-", text.lower()).strip("-")


def default_path(kind: str, rid: str) -> str:
    """The file the default catalogue globs keep the `kind` record `rid` in: the path of a
    record built without the name of its file."""
    return DEFAULT_CATALOGUE[kind][0].replace("*", rid, 1)


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) and f > 0 else None


@dataclass(frozen=True)
class FlopsRow:
    precision: str
    tflops: float
    dense: bool
    unit: str | None = None


@dataclass(frozen=True)
class Entry:
    """What every catalogue record has: its id, its name, and the file it was read from (the
    provenance of every input taken from it names that file)."""

    id: str
    name: str
    path: str


@dataclass(frozen=True)
class Accelerator(Entry):
    bandwidth_gbps: float | None
    flops: tuple[FlopsRow, ...] = ()
    vram_gb: float | None = None

    def dense_peak(self, precision: str) -> float | None:
        """The largest dense row at `precision` (a part may list a vector and a matrix row)."""
        rows = [r.tflops for r in self.flops if r.precision == precision and r.dense]
        return max(rows) if rows else None

    def has_sparse_only(self, precision: str) -> bool:
        rows = [r for r in self.flops if r.precision == precision]
        return bool(rows) and not any(r.dense for r in rows)

    def best_dense(self) -> FlopsRow | None:
        """The highest dense peak at a floating or integer matrix precision (lenient)."""
        rows = [r for r in self.flops if r.dense and r.precision not in ("fp64", "other")]
        return max(rows, key=lambda r: r.tflops) if rows else None


@dataclass(frozen=True)
class Model(Entry):
    params_b: float | None
    active_params_b: float | None
    architecture: str | None


@dataclass(frozen=True)
class Quantization(Entry):
    scheme: str | None
    bits: str | None


@dataclass(frozen=True)
class Catalogue:
    accelerators: Mapping[str, Accelerator] = field(default_factory=dict)
    models: Mapping[str, Model] = field(default_factory=dict)
    quantization: Mapping[str, Quantization] = field(default_factory=dict)
    gotchas: frozenset[str] = frozenset()

    @cached_property
    def _model_index(self) -> NameIndex[Model]:
        """Every way a model is named (id, name, name before its parenthesis, an alias of
        model_aliases.py) -> the model."""
        aliases = [(a, self.models[i]) for a, ids, _ in ALIASES for i in ids if i in self.models]
        keys = [(k, m) for m in self.models.values() for k in _model_keys(m)]
        return NameIndex(keys + aliases)

    @cached_property
    def _accelerator_index(self) -> _KeyIndex[Accelerator]:
        return _KeyIndex((k, a) for a in self.accelerators.values() for k in _name_keys(a))

    def match_model(self, text: str) -> Model | None:
        """The catalogue model whose id or name stands in `text` whatever its spelling
        ("llama3.1:8b", "meta-llama/Llama-3.1-8B-Instruct" -> llama-3-1-8b), unless the sizes
        the text states are another model's ("DeepSeek-R1-Distill-Qwen-14B" is not R1); the
        longest wins, so "qwen3-30b-a3b" beats "qwen3-30b". None when nothing matches."""
        found = [
            h
            for h in self._model_index.find(text)
            if sizes_agree(
                text, f"{h.item.id} {h.item.name}", h.item.params_b, h.item.active_params_b
            )
        ]
        if not found:
            return None
        return max(found, key=lambda h: h.length).item

    def match_accelerators(self, text: str) -> list[Accelerator]:
        """Catalogue parts whose id or name stands in `text` as whole words, whatever the case,
        spacing or hyphens ("h100 sxm5", "RTX4090", "H100-SXM"). A part whose longest match
        is contained in another part's longer match gives way ("H100" beside "H100 SXM"), and
        a name that several parts share, with nothing longer beside it, names none of them."""
        longest: dict[str, tuple[str, Accelerator]] = {}
        for key, a in self._accelerator_index.find(part_slug(text)):
            if a.id not in longest or len(key) > len(longest[a.id][0]):
                longest[a.id] = (key, a)
        hits = list(longest.values())
        kept = [
            (k, a)
            for k, a in hits
            if not any(kb != k and f"-{k}-" in f"-{kb}-" for kb, b in hits if b.id != a.id)
        ]
        shared = {k for k, a in kept if sum(1 for kb, _ in kept if kb == k) > 1}
        return [a for k, a in kept if k not in shared]


class _KeyIndex(Generic[V]):
    """Names made of slug words, indexed by their letters and digits run together: finding
    every name that stands in a text costs a few dictionary look-ups per word of the text. A
    text may run a name's words together ("rtx4090" for "rtx-4090"), never split one."""

    def __init__(self, pairs: Iterable[tuple[str, V]]) -> None:
        self._by_compact: dict[str, list[tuple[frozenset[int], str, V]]] = {}
        self._span = 1  # the most words of any name
        for key, item in pairs:
            self._span = max(self._span, key.count("-") + 1)
            self._by_compact.setdefault(key.replace("-", ""), []).append((_cuts(key), key, item))

    def find(self, slugged: str) -> list[tuple[str, V]]:
        words = slugged.split("-")
        out = []
        for i in range(len(words)):
            joined, cuts = "", set()
            for w in words[i : i + self._span]:
                if joined:
                    cuts.add(len(joined))
                joined += w
                for key_cuts, key, item in self._by_compact.get(joined, ()):
                    if cuts <= key_cuts:
                        out.append((key, item))
        return out


def _cuts(key: str) -> frozenset[int]:
    """Where a key's words meet, as offsets into its letters and digits run together."""
    out, at = set(), 0
    for w in key.split("-")[:-1]:
        at += len(w)
        out.add(at)
    return frozenset(out)


_GENERATION = re.compile(r"(?<=-)(sxm|oam)\d(?=-|$)")


def part_slug(text: str) -> str:
    """A part's name as this catalogue matches it: slugged, a form factor's generation
    dropped ("H100 SXM5" is the H100 SXM)."""
    return _GENERATION.sub(r"\1", "-" + slug(text))[1:]


_BRAND_WORDS = frozenset(
    {
        "nvidia",
        "amd",
        "intel",
        "apple",
        "google",
        "geforce",
        "radeon",
        "instinct",
        "tesla",
        "cerebras",
        "cloud",
    }
)
_FORM_FACTORS = frozenset({"sxm", "pcie", "oam", "nvl", "mezzanine"})


@lru_cache(maxsize=4096)
def _model_keys(m: Model) -> frozenset[str]:
    return frozenset({m.id, m.name, m.name.split("(")[0]})


@lru_cache(maxsize=4096)
def _name_keys(a: Accelerator) -> frozenset[str]:
    """The ways a text may name this part: its slugged name, without leading brand words,
    without a trailing form factor. Keys carry a digit, so "amd" alone names nothing."""
    tokens = part_slug(a.name.split("(")[0]).split("-")
    keys = set()
    for start in range(len(tokens)):
        if start and tokens[start - 1] not in _BRAND_WORDS:
            break
        rest = tokens[start:]
        keys.add("-".join(rest))
        if len(rest) > 1 and rest[-1] in _FORM_FACTORS:
            keys.add("-".join(rest[:-1]))
    keys |= {k.replace("geforce-", "") for k in keys}
    keys |= {_with_capacity(k, a.vram_gb) for k in keys if a.vram_gb and "gb" not in k}
    keys.add(part_slug(a.id))
    return frozenset(k for k in keys if len(k) >= 4 and any(c.isdigit() for c in k))


def _with_capacity(key: str, vram_gb: float) -> str:
    """ "h100-sxm" as "H100 80GB SXM5" writes it: the capacity after the part's number."""
    words = key.split("-")
    at = next((i for i, w in enumerate(words) if any(c.isdigit() for c in w)), len(words) - 1)
    return "-".join([*words[: at + 1], f"{vram_gb:g}gb", *words[at + 1 :]])


def accelerator_from_json(obj: Mapping[str, Any], path: str | None = None) -> Accelerator:
    rows: list[FlopsRow] = []
    for r in obj.get("flops") or []:
        if not isinstance(r, Mapping):
            continue
        t = _num(r.get("tflops"))
        if t is None or not isinstance(r.get("precision"), str):
            continue
        unit = r.get("unit")
        rows.append(
            FlopsRow(
                r["precision"], t, r.get("dense") is True, unit if isinstance(unit, str) else None
            )
        )
    return Accelerator(
        id=str(obj["id"]),
        name=str(obj.get("name") or obj["id"]),
        path=path or default_path("accelerators", str(obj["id"])),
        bandwidth_gbps=_num(obj.get("memory_bandwidth_gbps")),
        flops=tuple(rows),
        vram_gb=_num(obj.get("vram_gb")),
    )


def model_from_json(obj: Mapping[str, Any], path: str | None = None) -> Model:
    arch = obj.get("architecture")
    return Model(
        id=str(obj["id"]),
        name=str(obj.get("name") or obj["id"]),
        path=path or default_path("models", str(obj["id"])),
        params_b=_num(obj.get("params_b")),
        active_params_b=_num(obj.get("active_params_b")),
        architecture=arch if isinstance(arch, str) else None,
    )


def quantization_from_json(obj: Mapping[str, Any], path: str | None = None) -> Quantization:
    scheme, bits = obj.get("scheme"), obj.get("bits")
    return Quantization(
        id=str(obj["id"]),
        name=str(obj.get("name") or obj["id"]),
        path=path or default_path("quantization", str(obj["id"])),
        scheme=scheme if isinstance(scheme, str) else None,
        bits=bits if isinstance(bits, str) else (str(bits) if _num(bits) else None),
    )


def build_catalogue(
    accelerators: Iterable[Mapping[str, Any]] = (),
    models: Iterable[Mapping[str, Any]] = (),
    quantization: Iterable[Mapping[str, Any]] = (),
    gotcha_ids: Iterable[str] = (),
    files: Mapping[str, Mapping[str, str]] | None = None,
) -> Catalogue:
    """The catalogue of these records. `files`: kind -> record id -> the file it was read from
    (a record it does not name is taken to be where the default globs keep it)."""
    files = files or {}

    def path(kind: str, obj: Mapping[str, Any]) -> str | None:
        return files.get(kind, {}).get(str(obj["id"]))

    accs = (accelerator_from_json(o, path("accelerators", o)) for o in accelerators)
    mods = (model_from_json(o, path("models", o)) for o in models)
    quants = (quantization_from_json(o, path("quantization", o)) for o in quantization)
    return Catalogue(
        accelerators={a.id: a for a in accs},
        models={m.id: m for m in mods},
        quantization={q.id: q for q in quants},
        gotchas=frozenset(gotcha_ids),
    )
