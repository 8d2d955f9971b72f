"""Each engine's flags and options, as data: which flag sets the tensor, pipeline, data or expert
degree, the batch, the weights' dtype, the KV cache's dtype, speculation. One row a flag, with a
real command line that uses it. Adding a flag is one row; the rules and the KV-cache aside below
are built from the rows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from roofbot.core.reader.rule import Aside, Kind, Rule, rx
from roofbot.core.reader.vocab.model import PRECISION_WORDS


class Role(Enum):
    """What a flag sets, and the input it is a mention of (None: it is set aside)."""

    TP = Kind.TENSOR_DEGREE
    PP = Kind.PIPELINE_DEGREE
    DP = Kind.DATA_DEGREE
    EP = Kind.EXPERT_DEGREE
    BATCH = Kind.BATCH
    WEIGHTS = Kind.PRECISION
    SPECULATION = Kind.SPECULATIVE
    KV_CACHE = None

    @property
    def kind(self) -> Kind | None:
        return _KIND[self]


_KIND: dict[Role, Kind | None] = {r: r.value for r in Role}


@dataclass(frozen=True)
class Flag:
    """`spelling` as typed (a flag, a keyword argument, an environment variable); `switch`: it
    takes no value ("--enable-expert-parallel")."""

    engine: str
    spelling: str
    role: Role
    example: str
    switch: bool = False


FLAGS: tuple[Flag, ...] = (
    # vLLM
    Flag("vllm", "--tensor-parallel-size", Role.TP, "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4"),
    Flag("vllm", "-tp", Role.TP, "vllm serve Qwen/Qwen3-32B -tp 2"),
    Flag("vllm", "tensor_parallel_size", Role.TP, "LLM(model=name, tensor_parallel_size=4)"),
    Flag("vllm", "--pipeline-parallel-size", Role.PP, "vllm serve m --pipeline-parallel-size 2 --tensor-parallel-size 8"),
    Flag("vllm", "-pp", Role.PP, "vllm serve m -tp 8 -pp 2"),
    Flag("vllm", "pipeline_parallel_size", Role.PP, "LLM(model=name, pipeline_parallel_size=2)"),
    Flag("vllm", "--data-parallel-size", Role.DP, "vllm serve m --data-parallel-size 2 --tensor-parallel-size 4"),
    Flag("vllm", "-dp", Role.DP, "vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel"),
    Flag("vllm", "--enable-expert-parallel", Role.EP, "vllm serve m -tp 8 --enable-expert-parallel", switch=True),
    Flag("vllm", "--dtype", Role.WEIGHTS, "vllm serve m --dtype bfloat16"),
    Flag("vllm", "--quantization", Role.WEIGHTS, "vllm serve m --quantization fp8"),
    Flag("vllm", "-q", Role.WEIGHTS, "vllm serve TheBloke/Llama-2-13B-AWQ -q awq"),
    Flag("vllm", "--kv-cache-dtype", Role.KV_CACHE, "vllm serve m --kv-cache-dtype fp8_e5m2"),
    Flag("vllm", "--speculative-config", Role.SPECULATION, "vllm serve m --speculative-config '{\"method\": \"ngram\"}'"),
    Flag("vllm", "--num-speculative-tokens", Role.SPECULATION, "vllm serve m --num-speculative-tokens 5"),
    Flag("vllm", "--batch-size", Role.BATCH, "python benchmarks/benchmark_latency.py --batch-size 8"),
    # SGLang
    Flag("sglang", "--tp-size", Role.TP, "python -m sglang.launch_server --model-path m --tp-size 8"),
    Flag("sglang", "--tp", Role.TP, "python -m sglang.launch_server --model-path m --tp 8"),
    Flag("sglang", "--dp-size", Role.DP, "python -m sglang.launch_server --model-path m --dp-size 2 --tp 4"),
    Flag("sglang", "--dp", Role.DP, "python -m sglang.launch_server --model-path m --tp 8 --dp 2"),
    Flag("sglang", "--pp-size", Role.PP, "python -m sglang.launch_server --model-path m --pp-size 2"),
    Flag("sglang", "--ep-size", Role.EP, "python -m sglang.launch_server --model-path m --tp 8 --ep-size 8"),
    Flag("sglang", "tp_size", Role.TP, "/get_server_info: tp_size 8, ep_size 8, dp_size 1"),
    Flag("sglang", "ep_size", Role.EP, "/get_server_info: tp_size 8, ep_size 8, dp_size 1"),
    Flag("sglang", "dp_size", Role.DP, "/get_server_info: tp_size 4, dp_size 2"),
    Flag("sglang", "--speculative-algorithm", Role.SPECULATION, "--speculative-algorithm EAGLE --speculative-num-steps 3"),
    Flag("sglang", "--speculative-draft-model-path", Role.SPECULATION, "--speculative-draft-model-path lmsys/sglang-EAGLE-llama2-chat-7B"),
    Flag("sglang", "--batch-size", Role.BATCH, "python -m sglang.bench_one_batch --model-path m --batch-size 32"),
    # TensorRT-LLM
    Flag("tensorrt-llm", "--tp_size", Role.TP, "trtllm-build --checkpoint_dir ckpt --tp_size 4"),
    Flag("tensorrt-llm", "--pp_size", Role.PP, "convert_checkpoint.py --tp_size 4 --pp_size 2"),
    Flag("tensorrt-llm", "--ep_size", Role.EP, "trtllm-bench --model m throughput --tp 8 --ep_size 8"),
    Flag("tensorrt-llm", "--moe_ep_size", Role.EP, "convert_checkpoint.py --tp_size 8 --moe_ep_size 8"),
    Flag("tensorrt-llm", "--qformat", Role.WEIGHTS, "python quantize.py --qformat fp8 --kv_cache_dtype fp8"),
    Flag("tensorrt-llm", "--kv_cache_dtype", Role.KV_CACHE, "python quantize.py --qformat fp8 --kv_cache_dtype fp8"),
    Flag("tensorrt-llm", "--speculative_decoding_mode", Role.SPECULATION, "trtllm-build --speculative_decoding_mode medusa"),
    Flag("tensorrt-llm", "--concurrency", Role.BATCH, "trtllm-bench throughput --concurrency 64"),
    # llama.cpp, llama-bench, llama-batched-bench
    Flag("llama.cpp", "-ctk", Role.KV_CACHE, "llama-bench -m m.gguf -ctk q8_0 -ctv q8_0 -fa 1"),
    Flag("llama.cpp", "-ctv", Role.KV_CACHE, "llama-bench -m m.gguf -ctk q8_0 -ctv q8_0 -fa 1"),
    Flag("llama.cpp", "--cache-type-k", Role.KV_CACHE, "llama-server --cache-type-k q8_0 --cache-type-v q4_0"),
    Flag("llama.cpp", "--cache-type-v", Role.KV_CACHE, "llama-server --cache-type-k q8_0 --cache-type-v q4_0"),
    Flag("llama.cpp", "-md", Role.SPECULATION, "llama-server -m big.gguf -md small.gguf --draft-max 16"),
    Flag("llama.cpp", "--model-draft", Role.SPECULATION, "llama-speculative -m big.gguf --model-draft small.gguf"),
    Flag("llama.cpp", "--draft-max", Role.SPECULATION, "llama-server -m big.gguf -md small.gguf --draft-max 16"),
    Flag("llama.cpp", "-npl", Role.BATCH, "llama-batched-bench -m m.gguf -npl 16 -npp 128 -ntg 128"),
    Flag("llama.cpp", "-np", Role.BATCH, "llama-server -m m.gguf -np 4 -c 16384"),
    Flag("llama.cpp", "--parallel", Role.BATCH, "llama-server -m m.gguf --parallel 4"),
    # ollama
    Flag("ollama", "ollama_kv_cache_type", Role.KV_CACHE, "OLLAMA_KV_CACHE_TYPE=q8_0 ollama run llama3.1:8b"),
    Flag("ollama", "ollama_num_parallel", Role.BATCH, "OLLAMA_NUM_PARALLEL=4 ollama serve"),
    # exllamav2
    Flag("exllamav2", "--draft_model_dir", Role.SPECULATION, "exllamav2 test_inference.py --draft_model_dir /models/draft"),
    Flag("exllamav2", "-dm", Role.SPECULATION, "python examples/chat.py -m big -dm small"),
    Flag("exllamav2", "--cache_q4", Role.KV_CACHE, "python test_inference.py -m model --cache_q4", switch=True),
    Flag("exllamav2", "--cache_8bit", Role.KV_CACHE, "python test_inference.py -m model --cache_8bit", switch=True),
    # MLX
    Flag("mlx", "--draft-model", Role.SPECULATION, "mlx_lm.generate --model big --draft-model small"),
    Flag("mlx", "--kv-bits", Role.KV_CACHE, "mlx_lm.generate --model m --kv-bits 8"),
    # transformers
    Flag("transformers", "torch_dtype", Role.WEIGHTS, "from_pretrained(name, torch_dtype=torch.bfloat16)"),
    Flag("transformers", "assistant_model", Role.SPECULATION, "model.generate(**inputs, assistant_model=assistant)"),
    Flag("transformers", "batch_size", Role.BATCH, "pipeline(..., batch_size=8)"),
)  # fmt: skip

_WORD = r"\s*[= ]\s*['\"]?"
"""Between a flag and its value: "--tp 8", "--tp=8", "tensor_parallel_size=4"."""
_DTYPE = "|".join(sorted(PRECISION_WORDS, key=len, reverse=True))
_WEIGHT_ONLY = r"(?:awq|gptq)(?:_marlin)?"
"""Weight-only 4-bit methods an engine's quantization flag names: the math runs in 16 bits."""


def _spellings(role: Role, switch: bool | None = None) -> str:
    """The role's spellings, longest first, each with nothing word-like before it (written
    after the word, so that the regex engine skips straight to the letters it looks for)."""
    rows = sorted((f for f in FLAGS if f.role is role), key=lambda f: -len(f.spelling))
    words = dict.fromkeys(
        re.escape(f.spelling.lower()) for f in rows if switch is None or f.switch is switch
    )
    return "(?:" + "|".join(rf"{w}(?<![\w-]{w})" for w in words) + ")"


def _degree_rule(role: Role, name: str, reads: tuple[tuple[str, int], ...]) -> Rule[int]:
    kind = role.kind
    assert kind is not None
    switches = any(f.role is role and f.switch for f in FLAGS)
    on = rf"|{_spellings(role, switch=True)}(?![\w-])" if switches else ""
    return Rule(
        name,
        kind,
        rx(_spellings(role, switch=False) + r"\s*[= ]\s*(\d{1,4})\b" + on),
        lambda m: int(m[1]) if m[1] else 0,
        reads,
        ("OMITTED BY SOURCE: TP size, KV-cache dtype", "--tp-size N, --dp-size M"),
    )


FLAG_RULES: tuple[Rule[Any], ...] = (
    _degree_rule(Role.TP, "flag-tensor-parallel", (
        ("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4", 4),
        ("LLM(model=name, tensor_parallel_size=4)", 4),
        ("python -m sglang.launch_server --tp 8", 8),
    )),
    _degree_rule(Role.PP, "flag-pipeline-parallel", (
        ("vllm serve m -tp 8 -pp 2", 2), ("convert_checkpoint.py --tp_size 4 --pp_size 2", 2),
    )),
    _degree_rule(Role.DP, "flag-data-parallel", (
        ("vllm serve m --data-parallel-size 2 --tensor-parallel-size 4", 2),
        ("python -m sglang.launch_server --model-path m --dp-size 2 --tp 4", 2),
    )),
    _degree_rule(Role.EP, "flag-expert-parallel", (
        ("python -m sglang.launch_server --tp 8 --ep-size 8", 8),
        ("vllm serve m -tp 8 --enable-expert-parallel", 0),
    )),
    Rule(
        "flag-batch",
        Kind.BATCH,
        rx(_spellings(Role.BATCH) + r"\s*[= ]\s*(\d{1,5})\b"),
        lambda m: int(m[1]),  # "-npl 4 8 16" sweeps: the first is read
        (
            ("python -m sglang.bench_one_batch --model-path m --batch-size 32", 32),
            ("OLLAMA_NUM_PARALLEL=4 ollama serve", 4),
            ("llama-batched-bench -npl 4 -npp 128 -ntg 128", 4),
        ),
        ("llama-bench -p 512 -n 128 -b 2048 -ub 512", "--max-batch-size 256", "-ngl 99 -fa 1"),
    ),
    Rule(
        "flag-weights-dtype",
        Kind.PRECISION,
        rx(
            _spellings(Role.WEIGHTS)
            + _WORD
            + rf"(?:torch\.)?({_DTYPE}|{_WEIGHT_ONLY})(?![a-z0-9])"
        ),
        lambda m: "w4a16" if re.fullmatch(_WEIGHT_ONLY, m[1]) else m[1],
        (
            ("from_pretrained(name, torch_dtype=torch.bfloat16)", "bfloat16"),
            ("python quantize.py --qformat fp8 --kv_cache_dtype fp8", "fp8"),
            ("vllm serve m --dtype half", "half"),
            ("vllm serve --dtype bfloat16", "bfloat16"),
            ("vllm serve --quantization fp8", "fp8"),
            ("vllm serve TheBloke/Llama-2-13B-AWQ --quantization awq", "w4a16"),
            ("python -m sglang.launch_server --quantization gptq_marlin", "w4a16"),
        ),
        ("vllm serve m --kv-cache-dtype fp8", "--dtype auto"),
    ),
    Rule(
        "flag-speculation",
        Kind.SPECULATIVE,
        rx(_spellings(Role.SPECULATION) + r"(?![\w-])"),
        lambda m: m[0],
        (
            ("llama-server -m big.gguf -md small.gguf --draft-max 16", "-md"),
            ("model.generate(**inputs, assistant_model=assistant)", "assistant_model"),
        ),
        ("--draft-maximal", "-mdx"),
    ),
)  # fmt: skip
"""The rules the engine flags make: a degree, a batch, the weights' dtype, speculation."""

KV_CACHE_ASIDE = Aside(
    "kv-cache-flag",
    frozenset({Kind.PRECISION, Kind.GGUF_TYPE, Kind.BITS}),
    rx(_spellings(Role.KV_CACHE) + r"(?:" + _WORD + r"[\w.-]+)?"),
    "the KV cache's type, set by an engine flag, not the weights' format",
    (
        "llama-bench -m m.gguf -ctk q8_0 -ctv q8_0 -fa 1",
        "OLLAMA_KV_CACHE_TYPE=q8_0 ollama run llama3.1:8b",
        "python quantize.py --qformat fp8 --kv_cache_dtype fp8",
    ),
    ("llama-bench -m llama-3.1-8b-q8_0.gguf",),
)
