"""Systems whose name says which parts ran and how many: DGX and HGX generations, cloud instance
types, TPU slices, vendor platforms. One row a system, with a real phrase it reads and the public
page its figures come from. Adding a system is one row."""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofbot.core.reader.rule import NUMBER_WORDS, Kind, Rule, rx


@dataclass(frozen=True)
class System:
    """`pattern` (lower case) names the system; where it has a group, the group is a number
    in the name and the count is it divided by `per` (a TPU v4 slice's name counts its
    TensorCores, two to a chip), else the count is `count`. `part` is the part as a catalogue
    names it."""

    pattern: str
    part: str
    count: int
    example: str
    source: str
    per: int = 1


_EC2 = "https://aws.amazon.com/ec2/instance-types/"
_GCP = "https://cloud.google.com/compute/docs/accelerator-optimized-machines"
_AZ = "https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/"
_TPU = "https://cloud.google.com/tpu/docs/system-architecture-tpu-vm"

SYSTEMS: tuple[System, ...] = (
    # NVIDIA DGX and HGX: eight SXM parts on one baseboard.
    System(r"dgx\s?h100", "H100 SXM", 8, "DGX H100, TensorRT-LLM", "NVIDIA DGX H100 datasheet"),
    System(r"dgx\s?h200", "H200 SXM", 8, "on a DGX H200", "NVIDIA DGX H200 datasheet"),
    System(r"dgx\s?b200", "B200", 8, "DGX B200, FP4", "NVIDIA DGX B200 datasheet"),
    System(r"dgx\s?b300", "B300", 8, "DGX B300 system", "NVIDIA DGX B300 datasheet"),
    System(r"dgx\s?a100", "A100 SXM", 8, "DGX A100 (8x A100)", "NVIDIA DGX A100 datasheet"),
    System(r"hgx\s?h100", "H100 SXM", 8, "HGX H100 8-GPU", "NVIDIA HGX platform page"),
    System(r"hgx\s?h200", "H200 SXM", 8, "one NVIDIA HGX H200 board", "NVIDIA HGX platform page"),
    System(r"hgx\s?b200", "B200", 8, "HGX B200 server", "NVIDIA HGX platform page"),
    System(r"hgx\s?b300", "B300", 8, "HGX B300 node", "NVIDIA HGX platform page"),
    System(r"dgx\s?spark", "GB10", 1, "NVIDIA DGX Spark (GB10)", "NVIDIA DGX Spark datasheet"),
    # NVL racks: the rack's parts; a slice of one is counted where the text names it.
    System(r"gb200\s?nvl72", "GB200 NVL72", 72, "CoreWeave GB200 NVL72 rack", "NVIDIA GB200 NVL72 page"),
    System(r"gb200\s?nvl36", "GB200 NVL72", 36, "a GB200 NVL36 rack", "NVIDIA GB200 NVL72 page"),
    System(r"gb300\s?nvl72", "GB300", 72, "GB300 NVL72 rack", "NVIDIA GB300 NVL72 page"),
    # AWS EC2 accelerated instances.
    System(r"p5\.48xlarge", "H100 SXM", 8, "AWS p5.48xlarge", _EC2 + "p5/"),
    System(r"p5en?\.48xlarge", "H200 SXM", 8, "a p5e.48xlarge instance", _EC2 + "p5/"),
    System(r"p4d\.24xlarge", "A100 40GB SXM4", 8, "p4d.24xlarge", _EC2 + "p4/"),
    System(r"p4de\.24xlarge", "A100 80GB SXM4", 8, "p4de.24xlarge", _EC2 + "p4/"),
    System(r"p6-b200\.48xlarge", "B200", 8, "p6-b200.48xlarge", _EC2 + "p6/"),
    System(r"g6e\.(?:2|4|8|16)?xlarge", "L40S", 1, "g6e.2xlarge", _EC2 + "g6e/"),
    System(r"g6e\.(?:12|24)xlarge", "L40S", 4, "g6e.12xlarge", _EC2 + "g6e/"),
    System(r"g6e\.48xlarge", "L40S", 8, "g6e.48xlarge", _EC2 + "g6e/"),
    System(r"g6\.(?:2|4|8|16)?xlarge", "L4", 1, "g6.xlarge", _EC2 + "g6/"),
    System(r"g6\.(?:12|24)xlarge", "L4", 4, "g6.12xlarge", _EC2 + "g6/"),
    System(r"g6\.48xlarge", "L4", 8, "g6.48xlarge", _EC2 + "g6/"),
    System(r"g5\.(?:2|4|8|16)?xlarge", "A10G", 1, "g5.2xlarge", _EC2 + "g5/"),
    System(r"g5\.(?:12|24)xlarge", "A10G", 4, "g5.12xlarge", _EC2 + "g5/"),
    System(r"g5\.48xlarge", "A10G", 8, "g5.48xlarge", _EC2 + "g5/"),
    System(r"trn1n?\.32xlarge", "AWS Trainium1", 16, "trn1.32xlarge", _EC2 + "trn1/"),
    System(r"trn2\.48xlarge", "AWS Trainium2", 16, "trn2.48xlarge", _EC2 + "trn2/"),
    System(r"inf2\.48xlarge", "AWS Inferentia2", 12, "inf2.48xlarge", _EC2 + "inf2/"),
    System(r"inf2\.24xlarge", "AWS Inferentia2", 6, "inf2.24xlarge", _EC2 + "inf2/"),
    System(r"inf2\.8?xlarge", "AWS Inferentia2", 1, "inf2.xlarge", _EC2 + "inf2/"),
    # Google Cloud: the machine type ends in its GPU count.
    System(r"a3-(?:high|mega|edge)gpu-(\d+)g", "H100 SXM", 0, "GCP a3-highgpu-8g", _GCP),
    System(r"a3-ultragpu-(\d+)g", "H200 SXM", 0, "a3-ultragpu-8g", _GCP),
    System(r"a4-highgpu-(\d+)g", "B200", 0, "a4-highgpu-8g", _GCP),
    System(r"a2-(?:high|mega)gpu-(\d+)g", "A100 40GB SXM4", 0, "a2-highgpu-2g", _GCP),
    System(r"a2-ultragpu-(\d+)g", "A100 80GB SXM4", 0, "a2-ultragpu-8g", _GCP),
    # Azure ND: eight parts a VM.
    System(r"nd\s?h100\s?v5|nd96isr_h100_v5", "H100 SXM", 8, "Azure ND H100 v5", _AZ + "nd-family"),
    System(r"nd\s?h200\s?v5|nd96isr_h200_v5", "H200 SXM", 8, "ND H200 v5 VM", _AZ + "nd-family"),
    System(r"nd\s?mi300x\s?v5|nd96isr_mi300x_v5", "MI300X", 8, "ND MI300X v5", _AZ + "nd-family"),
    System(r"ndm\s?a100\s?v4", "A100 80GB SXM4", 8, "NDm A100 v4", _AZ + "nd-family"),
    System(r"nd\s?a100\s?v4|nd96asr_v4", "A100 40GB SXM4", 8, "ND A100 v4", _AZ + "nd-family"),
    # Cloud TPU slices: v5e and v6e names count chips, v4 and v5p names count TensorCores.
    System(r"(?:v5e|v5litepod)-(\d+)\b", "Google TPU v5e", 0, "TPU v5e-8, JetStream", _TPU),
    System(r"v6e-(\d+)\b", "Google TPU v6e", 0, "Cloud TPU v6e-8 slice", _TPU),
    System(r"v5p-(\d+)\b", "Google TPU v5p", 0, "a v5p-8 slice", _TPU, per=2),
    System(r"v4-(\d+)\b", "Google TPU v4", 0, "TPU v4-8 host", _TPU, per=2),
    # Vendor platforms: eight OAM parts on one universal baseboard.
    System(r"mi300x platform", "MI300X", 8, "AMD Instinct MI300X Platform", "AMD Instinct MI300X platform page"),
    System(r"mi325x platform", "MI325X", 8, "AMD Instinct MI325X Platform", "AMD Instinct MI325X platform page"),
    System(r"mi355x platform", "MI355X", 8, "AMD Instinct MI355X Platform", "AMD Instinct MI355X platform page"),
    System(r"hls-gaudi2", "Intel Gaudi 2", 8, "HLS-Gaudi2 server", "Intel Gaudi 2 HLS-Gaudi2 spec"),
)  # fmt: skip

_PATTERN = re.compile(
    r"(?<![\w.-])(?:(\d+)\s?[x×]\s?|("
    + "|".join(NUMBER_WORDS)
    + r")\s+)?("
    + "|".join(f"(?:{s.pattern})" for s in SYSTEMS)
    + r")(?![\w-])"
)
_ROWS = tuple((re.compile(s.pattern), s) for s in SYSTEMS)


def _read(m: re.Match[str]) -> tuple[System, int]:
    """The system the match names (the first row that reads its words) and its devices."""
    inner, row = next((r.fullmatch(m[3]), s) for r, s in _ROWS if r.fullmatch(m[3]))
    n = row.count
    if n == 0 and inner is not None and inner.lastindex:
        n = int(inner[1]) // row.per
    times = int(m[1]) if m[1] else NUMBER_WORDS[m[2]] if m[2] else 1
    return row, n * times


def systems_in(text: str) -> list[tuple[System, int]]:
    """Every system `text` (lower case) names, with the devices it stands for."""
    return [_read(m) for m in _PATTERN.finditer(text)]


SYSTEM_RULE: Rule[int] = Rule(
    "system-name",
    Kind.COUNT,
    rx(_PATTERN.pattern),
    lambda m: _read(m)[1],
    (
        ("DGX H100 x8, TensorRT-LLM", 8),
        ("AWS p5.48xlarge, vLLM 0.6.3", 8),
        ("GCP a3-highgpu-4g", 4),
        ("Cloud TPU v6e-8 slice, JetStream", 8),
        ("a v5p-8 slice", 4),
        ("2x DGX H100 over InfiniBand", 16),
        ("two p5.48xlarge instances, EFA", 16),
    ),
    ("DGX H100-class GPUs", "tp4-8 sweep", "v6e-8x faster"),
    weak=True,  # a count the text states outright ("4 GPUs of the DGX") wins
)
"""A system's name counts its parts: weak, so an explicit count beside it wins."""
