"""What the text says of one device's memory: its capacity and its peak bandwidth."""

from __future__ import annotations

import re
from typing import Any

from roofbot.core.reader.quantity import AMOUNT, amount
from roofbot.core.reader.rule import Aside, Kind, Rule, rx

DEVICE_MEMORY_RULE: Rule[float] = Rule(
    "device-memory",
    Kind.DEVICE_MEMORY,
    rx(
        r"(?=\d)(?<![\w.~])(\d+(?:\.\d+)?)\s?gb\s+(?:of\s+)?(?:vram|unified memory|hbm\w*|gddr\w*)\b"
    ),
    lambda m: float(m[1]),
    (
        ("Q8_0 quantization, 96GB VRAM", 96.0),
        ("4-bit quantization, 128GB unified memory", 128.0),
        ("RTX 5090 with 32GB GDDR7 at 1792 GB/s", 32.0),
    ),
    ("A 70B model at Q8_0 requires ~70GB of VRAM", "16 GB/s of HBM bandwidth"),
)
"""One device's memory, stated: where it is the resolved part's, the text is of one device."""

_GBS = AMOUNT + r"\s?([gt]b/s)"
"""A bandwidth figure: a number by the quantity grammar ("4,000", "3.35-3.9"), then GB/s or
TB/s."""


def _gbs(m: re.Match[str]) -> float:
    """The figure in GB/s; of a range, the higher end (the lenient reading)."""
    return amount(m[1])[1] * (1000.0 if m[2] == "tb/s" else 1.0)


_NOT_DEVICE_BANDWIDTH = (
    "the pair moves 825.7 GB/s = 43.0% of their combined 1920 GB/s DRAM peak",
    "Single-card baseline is 632.5 of 960 GB/s",
)
"""Achieved bandwidths and sums over devices: no rule below may read them."""

BANDWIDTH_RULES: tuple[Rule[float], ...] = (
    Rule(
        "memory-at-bandwidth",
        Kind.BANDWIDTH,
        rx(r"(?:gddr\w*|hbm\w*|lpddr\w*|unified memory|memory|vram)\s+(?:at|of|with)\s+" + _GBS),
        _gbs,
        (
            ("RTX PRO 6000 Blackwell with 96GB GDDR7 at 1792 GB/s", 1792.0),
            ("M4 Max with 128GB unified memory at 546 GB/s", 546.0),
            ("M5 Ultra with 512GB unified memory at 1.2TB/s", 1200.0),
        ),
        _NOT_DEVICE_BANDWIDTH,
    ),
    Rule(
        "bandwidth-figure",
        Kind.BANDWIDTH,
        rx(r"(?=\d)(?<![\w.])" + _GBS + r"\s+(?:memory\s+)?bandwidth\b"),
        _gbs,
        (
            ("273 GB/s memory bandwidth, in a MacBook Pro (Model Mac16,8)", 273.0),
            ("H200 SXM, 4,800 GB/s memory bandwidth", 4800.0),
            ("H100 variants quote 3.35-3.9 TB/s memory bandwidth", 3900.0),
        ),
        _NOT_DEVICE_BANDWIDTH,
    ),
    Rule(
        "part-then-bandwidth",
        Kind.BANDWIDTH,
        rx(
            r"(?:gpu(?<!per[ -]gpu)|\([a-z]{1,4}\d{1,4}\w*\))\s*,?\s*"
            + _GBS
            + r"(?!\s*(?:achieved|effective|measured|sustained|actual|of\b|out of))"
        ),
        _gbs,
        (
            ("Apple M3 Max 30-core GPU 300 GB/s, llama.cpp Metal", 300.0),
            ("NVIDIA DGX Spark (GB10) 273 GB/s", 273.0),
        ),
        (
            *_NOT_DEVICE_BANDWIDTH,
            "per-GPU 412 GB/s achieved in the decode loop",
            "the GPU 825 GB/s achieved",
        ),
    ),
    Rule(
        "bandwidth-of",
        Kind.BANDWIDTH,
        rx(r"bandwidth(?:\s+(?:of|is)|\s*[=:])\s*" + _GBS),
        _gbs,
        (("memory bandwidth of 3.35 TB/s", 3350.0), ("bandwidth: 960 GB/s", 960.0)),
        _NOT_DEVICE_BANDWIDTH,
    ),
    Rule(
        "bandwidth-beside-memory",
        Kind.BANDWIDTH,
        rx(r"\(" + _GBS + r"\s+(?:hbm\w*|gddr\w*|lpddr\w*)\)"),
        _gbs,
        (("H100 SXM5 (3.35 TB/s HBM3)", 3350.0),),
        _NOT_DEVICE_BANDWIDTH,
    ),
    Rule(
        "memory-then-bandwidth",
        Kind.BANDWIDTH,
        rx(r"(?:unified|lpddr\w*|gddr\w*|hbm\w*)(?: memory)?,\s*" + _GBS),
        _gbs,
        (
            (
                "Apple M4 Pro 12C/16GPU MacBook Pro Mac16,8, 48 GB unified, 273 GB/s, macOS 15.4",
                273.0,
            ),
            ("DGX Spark, 128 GB LPDDR5x, 273 GB/s", 273.0),
        ),
        _NOT_DEVICE_BANDWIDTH,
    ),
)
"""One device's peak memory bandwidth as the text states it, one rule per phrasing."""

_TOTAL = (
    r"(?:aggregate|total|combined|summed|node'?s|per[- ]node|cluster|rack|measured|achieved"
    r"|effective|sustained|observed)"
)
_LINK = (
    r"(?:nvlink|nvswitch|infinity fabric|xgmi|pcie|infiniband|ethernet|interconnect|link)"
    r"(?:\s*(?:gen\s?)?\d(?:\.\d)?)?(?:\s*x\d+)?"
)

NOT_THIS_DEVICES_PEAK = Aside(
    "bandwidth-not-the-devices-peak",
    frozenset({Kind.BANDWIDTH}),
    rx(
        rf"\b{_TOTAL}[^.;,]{{0,25}}?(?<![\w.]){_GBS}"
        rf"|\b{_LINK}(?:\s+bandwidth)?(?:\s+(?:of|at|is))?\s*[=:(]?\s*{_GBS}"
        rf"|(?<![\w.]){_GBS}\s+(?:of\s+)?(?:{_TOTAL}|nvlink|interconnect)\b"
    ),
    "a node's total, an achieved figure or a link, not this device's peak bandwidth",
    (
        "total memory bandwidth of 26.8 TB/s across the node",
        "the node's memory bandwidth: 26.8 TB/s",
        "measured memory bandwidth of 2.9 TB/s (87% of peak)",
        "NVLink bandwidth of 900 GB/s",
        "26.8 TB/s aggregate across 8 GPUs",
    ),
    (
        "RTX 4090 PCIe card with 1008 GB/s GDDR6X",
        "memory bandwidth of 3.35 TB/s per GPU",
        "H100 SXM5 (3.35 TB/s HBM3)",
    ),
)
"""What a bandwidth is comes from what it is attached to: these are not the device's peak."""

MEMORY_RULES: tuple[Rule[Any], ...] = (DEVICE_MEMORY_RULE, *BANDWIDTH_RULES)
