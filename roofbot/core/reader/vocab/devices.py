"""How many accelerators a figure is summed over, and how they split the model."""

from __future__ import annotations

import re
from typing import Any

from roofbot.core.reader.rule import NUMBER_WORDS, Kind, Rule, const, integer, rx
from roofbot.core.reader.vocab.systems import SYSTEM_RULE

_BRAND = r"(?:(?:nvidia|amd|intel|apple|google|huawei|qualcomm)\s+)?"
_LINE = r"(?:(?:geforce|radeon|instinct|tesla|arc|data center gpu)\s+)?"
_PART_TOKEN = (
    r"(?:(?:rtx|gtx|titan|radeon|instinct|arc|gaudi|tpu|ascend|wormhole|blackhole)"
    r"(?:\s(?:ai\s)?(?:pro\s)?[a-z]{0,2}\d{1,4}\w*)?(?:\s(?:ti|super|xtx|xt))?"
    r"|mi\d{2,3}\w*|[hbavl]\d{2,3}\w*|t4|l4|gb\d{3}\w*|trn\d|trainium|inferentia|inf\d"
    r"|rx\s?\d{4}\w*(?:\s(?:xtx|xt))?|wse-?\d\w*|{CONSUMER}(?:\s?(?:ti|super))?s?)"
).replace("{CONSUMER}", r"(?:[1-5]0[5-9]0|16[56]0)")
_NOUN = r"(?:gpus?|cards?|accelerators?|devices?|chips?|dies|apus?|npus?|wafers?)"
PART_OR_NOUN = rf"{_BRAND}{_LINE}(?:{_PART_TOKEN}|{_NOUN})\b"
"""Where a count may stand: before an accelerator noun or a part's name."""

_NOT_ONE = (
    r"(?![^,;:.()]{0,30}?\b(?:nodes?|servers?|systems?|clusters?|racks?|pods?|instances?|box(?:es)?"
    r"|machines?|vms?|slices?|hosts?|platforms?|superpods?|trays?|nvl\d+|x\s?\d|[x×]\d)\b)"
)
"""After a part's name: no word that makes it a machine of several ("an H100 node")."""

ONE_NAMED = "a-part"
"""The rule that reads "a"/"an" before a part's name as one device: any other count wins."""

_WORDS = NUMBER_WORDS
_IN_WORDS = "|".join(rf"{w}(?<!\w{w})" for w in _WORDS)
"""A count in words, with no letter before it ("two", not the end of "network")."""

COUNT_RULES: tuple[Rule[int], ...] = (
    Rule(
        "n-x-part",
        Kind.COUNT,
        rx(rf"(?=\d)(?<![\w.+-])(\d+)\s?[x×]\s?(?={PART_OR_NOUN})"),
        integer(),
        (
            ("Tensor-split across 2x RX 7900 XTX under ROCm on gfx1100", 2),
            ("Databricks Table 2, MPT-7B row '1 x A100', batch size 64 column", 1),
            ("1 node, 8x AMD Instinct MI355X 288GB HBM3e", 8),
            ("8x Intel Gaudi 2 OAM accelerators, 96GB HBM2E each", 8),
            ("Perplexity: Llama 2 70B FP8 on 8x H100 80GB", 8),
            ("1x L4, vLLM 0.6", 1),
        ),
        (
            "host link 4x PCIe 4.0 x16",
            "2x Intel Xeon Platinum 8380 (40 cores each, 2.3 GHz)",
            "~26% faster than Ollama, and 8x faster than --enforce-eager",
            "2 GPUs via HIP_VISIBLE_DEVICES=0,1 (2x32752 MiB, gfx906",
        ),
    ),
    Rule(
        "part-x-n",
        Kind.COUNT,
        re.compile(
            r"(?:(?<=[0-9A-Z]) ?[x×] ?|(?:(?<=[A-Z]\d\d)|(?<=[A-Z]\d{3})|(?<=[A-Z]\d{4}))\*)"
            r"(\d+)\b(?!\.\d)"
        ),
        integer(),
        (
            ("DGX H100 x8, TensorRT-LLM", 8),
            ("H100*8, TensorRT-LLM", 8),
            ("RTX 3090 x2 over PCIe", 2),
            ("AMD Instinct MI300X x8", 8),
        ),
        (
            "gfx906:sramecc+:xnack-",
            "host link 4x PCIe 4.0 x16",
            "12 nodes x 8 H100",
            "Injection {{ 7*7 }}",
        ),
        cased=True,  # "H100 x8": a part's capital or digit stands before the x
    ),
    Rule(
        "n-part",
        Kind.COUNT,
        rx(rf"(?=\d)(?<![\w./+-])(\d+)[ -]?(?:{PART_OR_NOUN})(?![\w-])"),
        integer(),
        (
            ("2 GPUs via HIP_VISIBLE_DEVICES=0,1", 2),
            ("output tokens/s (aggregate, 8 GPUs)", 8),
            ("output (decode) tokens/s per 8-GPU node (aggregate)", 8),
            ("12 nodes x 8 H100 = 96 H100 GPUs on the Atlas Cloud", 96),
            ("tok/s (batch-1 tensor-split decode across 2 cards)", 2),
            ("GB300 NVL72 8-GPU slice", 8),
        ),
        (
            "16-core Metal 3 GPU",
            "8192 generated tokens",
            "-ngl 99",
            "setup: Apple M4 Pro 12C/16GPU MacBook Pro Mac16,8",
            "Intel Gaudi 2 accelerators",
            "mlx 0.29.2.dev20251008+85a8824a8, mlx-lm 0.28.2",
            "Llama 3.1 8B Q4_K_M on an RTX 4090 GPU",
            "llama.cpp on RTX 4090 cards",
            "RTX 3090 GPUs with llama-bench",
            "RTX 5090 GPUs, CUDA 12.8",
            "on a Radeon RX 7900 XTX GPU",
            "a 4090 card",
        ),
    ),
    Rule(
        "word-part",
        Kind.COUNT,
        rx(rf"({_IN_WORDS})[- ](?={PART_OR_NOUN})"),
        lambda m: _WORDS[m[1].lower()],
        (
            ("eight H100s over NVLink", 8),
            ("a dual RTX 3090 rig", 2),
            ("two RTX 4090s, llama.cpp", 2),
            ("on a single GPU", 1),
        ),
        ("one of the two runs",),
    ),
    Rule(
        "pair-of",
        Kind.COUNT,
        rx(rf"\b(pair|couple|trio) of\s+(?={PART_OR_NOUN})"),
        lambda m: {"pair": 2, "couple": 2, "trio": 3}[m[1]],
        (("a pair of L40S cards", 2), ("a pair of RTX 3090s over NVLink", 2)),
        ("a pair of NVMe drives", "a couple of runs"),
    ),
    Rule(
        ONE_NAMED,
        Kind.COUNT,
        rx(rf"(?:an?)(?<![\w-]an)(?<![\w-]a)\s+(?={_BRAND}{_LINE}{_PART_TOKEN}\b{_NOT_ONE})"),
        const(1),
        (
            ("Llama 3.1 8B on a Radeon RX 7900 XTX GPU under ROCm", 1),
            ("Qwen2.5 7B on an RTX 4090 GPU, llama-bench tg128", 1),
            ("served on an H100 with vLLM", 1),
            ("on a 4090 with llama.cpp", 1),
        ),
        (
            "an H100 node of 8 H100 GPUs",
            "a GB200 NVL72 rack",
            "a H100 SXM5 server",
            "a DGX H100 system",
            "an RTX 3090 x2 rig",
        ),
        weak=True,  # "a" names one device only where nothing else counts them
    ),
    Rule(
        "machines-each-with",
        Kind.COUNT,
        rx(
            rf"\b({'|'.join(_WORDS)}|\d+) (?:machines|hosts|boxes|pcs|computers|nodes) \((?:one|each) with"
        ),
        lambda m: _WORDS.get(m[1].lower()) or int(m[1]),
        (("three machines (one with an RTX 4090, two others each with a 4060 Ti)", 3),),
        ("three separate machines holding 56GB of VRAM in total",),
    ),
    Rule(
        "one-device-system",
        Kind.COUNT,
        rx(r"(?:macbook(?: pro| air)?|mac studio|mac mini|imac|laptop|dgx spark)\b"),
        const(1),
        (("Hardware: MacBook Pro 14-inch M3 Pro, 18GB unified memory", 1), ("on a DGX Spark", 1)),
        ("Mac16,8 firmware",),
        weak=True,
    ),
    Rule(
        "tensor-parallel-degree",
        Kind.COUNT,
        rx(
            r"tp(?:(?<![\w-]tp)|(?<=--tp))\s*[=:]?\s*(\d+)\b|tp_size(?<!\wtp_size)[= ](\d+)\b"
            r"|-(?<![\w-]-)-?(?:tensor-parallel-size|tp|tp-size)[= ](\d+)\b"
            r"|tensor[- ]parallel(?:ism)?\s+(?:size|degree)\s*(?:of|=|:)?\s*(\d+)\b"
        ),
        lambda m: int(next(g for g in m.groups() if g)),
        (
            ("TensorRT-LLM, TP8, FP8 KV cache", 8),
            ("vllm serve --tensor-parallel-size 4", 4),
            ("sglang --tp 8", 8),
            ("llama-server -tp 2", 2),
            ("Tensor-parallel size 2 (the serving server spans TP=2)", 2),
            ("SGLang config as reported by /get_server_info: tp_size 8, ep_size 8", 8),
        ),
        ("perplexity-llama2-70b-h100-fp8-tp2-bs128-tps-per-gpu",),
        weak=True,
    ),
    Rule(
        "n-way-tensor-parallel",
        Kind.COUNT,
        rx(r"(?=\d)(?<![\w.])(\d+)-way tensor[- ]parallel"),
        integer(),
        (("4-way tensor parallel over NVLink", 4),),
        ("a 4-way split of the experts",),
        weak=True,
    ),
    Rule(
        "rack-name",
        Kind.COUNT,
        rx(r"nvl(?<!\wnvl)(\d+)\b", 0),
        integer(),
        (("CoreWeave GB200 NVL72 rack", 72),),
        ("NVIDIA H100 NVL", "GB300 NVL72 8-GPU slice"),
        weak=True,
    ),
    Rule(
        "visible-devices",
        Kind.COUNT,
        rx(r"(?:hip|cuda|rocr)_visible_devices=((?:\d+,)*\d+)"),
        lambda m: len(set(m[1].split(","))),
        (("2 GPUs via HIP_VISIBLE_DEVICES=0,1", 2), ("CUDA_VISIBLE_DEVICES=1,1,1", 1)),
        ("scaled by HIP_VISIBLE_DEVICES.",),
    ),
)

PER_DEVICE_RULE: Rule[int] = Rule(
    "per-device-unit",
    Kind.PER_DEVICE,
    rx(
        r"per(?<!\wper)[- ](?:gpu|accelerator|device|card|chip)\b(?!\s*(?:power\s+)?(?:cap|limit|tdp|power))"
        r"|tok(?<!\wtok)(?:en)?s?/s/(?:gpu|chip|device)\b"
    ),
    const(1),
    (
        ("output tokens/s per GPU (aggregate across concurrent requests)", 1),
        ("total tokens/s per GPU (aggregate across the rack)", 1),
        ("626 tok/s/GPU", 1),
    ),
    (
        "decode tokens/s per 8-GPU node (aggregate)",
        "output tokens/s (aggregate under a 1000W per-GPU cap)",
    ),
)
"""A unit quoted per device: the roofs are one device's, whatever the text's count."""


PARALLELISM_RULES: tuple[Rule[str], ...] = (
    Rule(
        "tensor-split",
        Kind.PARALLELISM,
        rx(
            r"-sm\s+(?:tensor|row)\b|--split-mode[= ](?:row|tensor)\b|tensor[- ](?:parallel\w*|split)\b"
            r"|tp(?<![\w-]tp)\s*=?\s*\d+\b|--tensor-parallel-size\b|-tp[= ]\d+|tp_size[= ][2-9]"
        ),
        const("tensor"),
        (
            ("-fa 1 -o md -r 3 -sm tensor, 2 GPUs via HIP_VISIBLE_DEVICES=0,1", "tensor"),
            ("tok/s (batch-1 tensor-split decode across 2 cards)", "tensor"),
            ("TensorRT-LLM with TP8", "tensor"),
            ("llama-server --split-mode row across both cards", "tensor"),
            ("vllm serve --tensor-parallel-size 4", "tensor"),
            ("/get_server_info: tp_size 8, ep_size 8, dp_size 1", "tensor"),
        ),
        ("-tps N, PLE shard", "OMITTED BY SOURCE: TP size, KV-cache dtype"),
    ),
    Rule(
        "layer-split",
        Kind.PARALLELISM,
        rx(
            r"-(?<![\w-]-)sm\s+layer\b|--split-mode[= ]layer\b|layer(?<!\wlayer)[- ]split\b"
            r"|pipeline(?<!\wpipeline)[- ]parallel\w*|pp(?<![\w-]pp)\s*=?\s*\d{1,2}\b"
        ),
        const("pipeline"),
        (
            ("llama-server -sm layer across both cards", "pipeline"),
            ("pipeline parallelism over 4 nodes", "pipeline"),
            ("PP4 TP8 vs TP8, batch size 1", "pipeline"),
        ),
        ("prefix-cache hit pipeline stage", "pp512 = 1460 t/s"),
    ),
)


DEVICE_RULES: tuple[Rule[Any], ...] = (
    *COUNT_RULES,
    SYSTEM_RULE,
    PER_DEVICE_RULE,
    *PARALLELISM_RULES,
)
