"""Numbers that are not what they look like. Each aside claims a stretch of text; a mention
of a shielded kind whose number stands inside it is set aside, and `explain` says why."""

from __future__ import annotations

from roofbot.core.reader.rule import Aside, Kind, rx
from roofbot.core.reader.vocab.flags import KV_CACHE_ASIDE
from roofbot.core.reader.vocab.memory import NOT_THIS_DEVICES_PEAK

_COUNTS = frozenset({Kind.COUNT})

ASIDES: tuple[Aside, ...] = (
    Aside(
        "link-width",
        _COUNTS,
        rx(
            r"pcie\s*(?:gen\s?)?\d(?:\.\d)?(?:\s*[x×]\s?\d+)?(?:\s+lanes?)?"
            r"|[x×]\d+\s+(?:lanes?|links?|slots?|pcie)\b|gen\s?\d\s*[x×]\d+\b"
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
            r"(?=\d)(?<![\w.])\d+\s?[x×]\s?"
            r"(?:(?:(?:intel|amd)\s+)?(?:xeon|epyc|ryzen(?!\s+ai)|core\s+i\d|threadripper|grace|cpus?"
            r"|sockets?|nics?|ssds?|nvme|dimms?|ports?|nodes?|hosts?|servers?)\b"
            r"|\d+\s?(?:gb|gbit|gbe|gb/s)\b)"
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
        "host-sockets",
        _COUNTS,
        rx(r"(?:dual|two|quad)(?<!\w(?:dual|quad))(?<!\wtwo)[- ](?:socket|cpu)\b"),
        "the host's CPU sockets, not accelerators",
        ("a dual-socket Xeon host", "two-socket EPYC server"),
        ("dual RTX 3090", "two GPUs"),
    ),
    Aside(
        "api-version",
        _COUNTS,
        rx(r"(?:metal|cuda|rocm|vulkan|opencl|sycl|directml|oneapi|hip)\s?\d+(?:\.\d+)*\b"),
        "a GPU API's version, not accelerators",
        ("16-core Metal 3 GPU", "ROCm 6 GPUs", "CUDA 12 devices"),
        ("8 GPUs",),
    ),
    Aside(
        "software-version",
        _COUNTS,
        rx(
            r"(?:python|pytorch|torch|driver|ubuntu|macos|ios(?<!\wios)|v(?<!\wv))\s?\d+(?:\.\d+)*\b"
        ),
        "a software version, not accelerators",
        ("PyTorch 2.1.1, synapseAI 1.14.98, Ubuntu 22.04", "MLPerf Inference v4.0"),
        ("8 GPUs",),
    ),
    Aside(
        "core-count",
        _COUNTS,
        rx(r"(?=\d)(?<![\w.])\d+(?:[- ]?(?:core|cu|sm|eu|xe-core|compute[- ]unit)s?\b|c/\d+gpu\b)"),
        "a core or compute-unit count, not accelerators",
        ("16-core Metal 3 GPU", "Apple M4 Pro 12C/16GPU", "40-core GPU"),
        ("2 GPUs",),
    ),
    Aside(
        "memory-capacity",
        _COUNTS,
        rx(r"(?=\d)(?<![\d.])\d+(?:\.\d+)?\s?(?:gb|gib|tb|mb|mib)\b(?!/s)"),
        "a memory capacity, not accelerators",
        ("H100 80GB GPUs", "RTX PRO 6000 Blackwell (96GB)", "2x32752 MiB"),
        ("8 GPUs",),
    ),
    Aside(
        "rack-slice",
        _COUNTS,
        rx(
            r"nvl(?<!\wnvl)\d+\b(?=[^.;]{0,40}?\b\d+[- ]?gpu\s+(?:slice|node|tray|partition|subset)\b)"
        ),
        "a rack's name; the text names the slice that ran",
        ("GB300 NVL72 8-GPU slice",),
        ("CoreWeave GB200 NVL72 rack",),
    ),
    Aside(
        "part-generation",
        _COUNTS,
        rx(
            r"(?:gaudi|trainium|inferentia|trn(?<!\wtrn)|inf(?<!\winf)|ascend|xe(?<!\wxe)"
            r"|tpu\s?v)\s?\d\w*\b(?!-\d)"
        ),
        "a part's name and generation, not a count",
        ("8x Intel Gaudi 2 OAM accelerators", "TPU v5e chips", "AWS Trainium 2 instances"),
        ("2 GPUs",),
    ),
    Aside(
        "part-name-number",
        _COUNTS,
        rx(
            r"(?:rtx|gtx|rx(?<!\wrx)|titan|quadro|radeon|arc(?<!\warc))"
            r"(?:\s+(?:pro|ai\s+pro|ai))?\s?[a-z]?\d{3,4}\b"
            r"|(?=\d)(?<![\w.,])(?:[1-5]0[5-9]0|16[56]0)(?=\s?(?:ti\s|super\s|xtx\s|xt\s)?(?:gpus?|cards?)\b)"
        ),
        "a number in a part's name, not a count",
        (
            "on an RTX 4090 GPU",
            "RTX 3090 GPUs",
            "on a Radeon RX 7900 XTX GPU",
            "RTX PRO 6000 cards",
            "two 4090 cards",
        ),
        ("8 GPUs", "2048 GPUs", "a cluster of 4096 GPUs"),
    ),
    Aside(
        "apple-generation",
        _COUNTS,
        rx(r"m(?<!\wm)\d(?:\s(?:pro|max|ultra))?\b"),
        "an Apple chip's name and generation, not a count",
        ("Apple M4 Pro GPU", "M3 Max"),
        ("2 GPUs", "mlx-lm 0.28.2"),
    ),
    Aside(
        "llama-bench-prompt-test",
        frozenset({Kind.PARALLELISM, Kind.COUNT, Kind.PIPELINE_DEGREE}),
        rx(r"pp(?<![\w-]pp)\d{3,}\b"),
        "llama-bench's prompt-processing test label, not pipeline parallelism",
        ("pp512 = 1460 t/s, tg128 = 61.9 t/s",),
        ("PP4 TP8",),
    ),
    Aside(
        "kv-cache-format",
        frozenset({Kind.PRECISION}),
        rx(
            r"(?:fp8|int8|fp16|bf16|fp4|nvfp4)\s+kv(?:[- ]cache)?\b|--kv-cache-dtype[= ]\w+"
            r"|kv[- ]cache(?: dtype)?\s*(?:in|=|:|is|was)?\s*(?:fp8|int8|fp16|bf16)\b"
        ),
        "the KV cache's format, not the precision the matrix math runs in",
        (
            "Llama 2 70B (WMXFP4 weights, FP8 KV cache, UINT8 scales)",
            "--kv-cache-dtype fp8",
            "KV cache in FP8",
        ),
        ("FP8 weights and FP8 activations",),
    ),
    KV_CACHE_ASIDE,
    NOT_THIS_DEVICES_PEAK,
)
"""Applied before any input rule; the asides of a field are shown by `explain`."""
