"""Numbers that are not what they look like. Each aside claims a stretch of text; a mention
of a shielded kind whose number stands inside it is set aside, and `explain` says why."""

from __future__ import annotations

from roofbot.core.reader.rule import Aside, Kind, rx

_COUNTS = frozenset({Kind.COUNT})

ASIDES: tuple[Aside, ...] = (
    Aside(
        "link-width",
        _COUNTS,
        rx(
            r"\b(?:\d+\s?[x×]\s?)?PCIe\s*(?:Gen\s?)?\d(?:\.\d)?(?:\s*[x×]\s?\d+)?(?:\s+lanes?)?"
            r"|(?<![\w-])[x×]\d+\s+(?:lanes?|links?|slots?|PCIe)\b|\bGen\s?\d\s*[x×]\d+\b"
        ),
        "a PCIe link (its lanes and width), not accelerators",
        (
            "host link 4x PCIe 4.0 x16",
            "1x PCIe 5.0 x16 per card",
            "PCIe Gen5 x16",
            "x16 lanes",
        ),
        ("8x H100 SXM5", "2x RTX 4090"),
    ),
    Aside(
        "host-cpu",
        _COUNTS,
        rx(
            r"\b\d+\s?[x×]\s?(?:(?:Intel|AMD)\s+)?(?:Xeon|EPYC|Ryzen(?!\s+AI)|Core\s+i\d|Threadripper|"
            r"Grace|CPUs?|sockets?|NICs?|SSDs?|NVMe|DIMMs?|ports?|nodes?|hosts?|servers?)\b"
            r"|\b\d+\s?[x×]\s?\d+\s?(?:Gb|Gbit|GbE|Gb/s)\b|\b(?:dual|two|quad)[- ](?:socket|CPU)\b"
        ),
        "the host's CPUs, sockets or other parts, not accelerators",
        (
            "2x Intel Xeon Platinum 8380",
            "2x AMD EPYC 9654",
            "24x 100Gb/s Ethernet on a 10x L3 fat-tree",
        ),
        ("2x RTX 3090", "8x MI300X"),
    ),
    Aside(
        "api-version",
        _COUNTS,
        rx(r"\b(?:Metal|CUDA|ROCm|Vulkan|OpenCL|SYCL|DirectML|oneAPI|HIP)\s?\d+(?:\.\d+)*\b"),
        "a GPU API's version, not accelerators",
        ("16-core Metal 3 GPU", "ROCm 6 GPUs", "CUDA 12 devices"),
        ("8 GPUs",),
    ),
    Aside(
        "software-version",
        _COUNTS,
        rx(r"\b(?:Python|PyTorch|torch|driver|Ubuntu|macOS|iOS|v)\s?\d+(?:\.\d+)*\b"),
        "a software version, not accelerators",
        ("PyTorch 2.1.1, synapseAI 1.14.98, Ubuntu 22.04", "MLPerf Inference v4.0"),
        ("8 GPUs",),
    ),
    Aside(
        "core-count",
        _COUNTS,
        rx(r"\b\d+[- ]?(?:core|CU|SM|EU|Xe-core|compute[- ]unit)s?\b|\b\d+C/\d+GPU\b"),
        "a core or compute-unit count, not accelerators",
        ("16-core Metal 3 GPU", "Apple M4 Pro 12C/16GPU", "40-core GPU"),
        ("2 GPUs",),
    ),
    Aside(
        "memory-capacity",
        _COUNTS,
        rx(r"(?=\d)(?<![\d.])\d+(?:\.\d+)?\s?(?:GB|GiB|TB|MB|MiB)\b(?!/s)"),
        "a memory capacity, not accelerators",
        ("H100 80GB GPUs", "RTX PRO 6000 Blackwell (96GB)", "2x32752 MiB"),
        ("8 GPUs",),
    ),
    Aside(
        "rack-slice",
        _COUNTS,
        rx(r"\bNVL\d+\b(?=[^.;]{0,40}?\b\d+[- ]?GPU\s+(?:slice|node|tray|partition|subset)\b)"),
        "a rack's name; the text names the slice that ran",
        ("GB300 NVL72 8-GPU slice",),
        ("CoreWeave GB200 NVL72 rack",),
    ),
    Aside(
        "part-generation",
        _COUNTS,
        rx(
            r"\b(?:Gaudi|Trainium|Inferentia|Trn|Inf|Ascend|Xe)\s?\d\w*\b|\bTPU\s?v\d\w*\b"
            r"|\bM\d(?:\s(?:Pro|Max|Ultra))?\b"
        ),
        "a part's name and generation, not a count",
        ("8x Intel Gaudi 2 OAM accelerators", "Apple M4 Pro GPU", "TPU v5e chips"),
        ("2 GPUs",),
    ),
    Aside(
        "llama-bench-prompt-test",
        frozenset({Kind.PARALLELISM, Kind.COUNT}),
        rx(r"(?<![\w-])pp\d{2,}\b", 0),
        "llama-bench's prompt-processing test label, not pipeline parallelism",
        ("pp512 = 1460 t/s, tg128 = 61.9 t/s",),
        ("PP4 TP8",),
    ),
    Aside(
        "kv-cache-format",
        frozenset({Kind.PRECISION}),
        rx(
            r"\b(?:FP8|INT8|FP16|BF16|FP4|NVFP4)\s+KV(?:[- ]cache)?\b|--kv-cache-dtype[= ]\w+"
            r"|\bKV[- ]cache(?: dtype)?\s*(?:in|=|:|is|was)?\s*(?:FP8|INT8|FP16|BF16)\b"
        ),
        "the KV cache's format, not the precision the matrix math runs in",
        (
            "Llama 2 70B (WMXFP4 weights, FP8 KV cache, UINT8 scales)",
            "--kv-cache-dtype fp8",
            "KV cache in FP8",
        ),
        ("FP8 weights and FP8 activations",),
    ),
)
"""Applied before any input rule; the asides of a field are shown by `explain`."""
