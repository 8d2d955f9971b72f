"""The input rules, by what they read: devices, their memory, the rate and its batch, the model."""

from __future__ import annotations

from typing import Any

from roofbot.core.reader.rule import Rule
from roofbot.core.reader.vocab.devices import DEVICE_RULES
from roofbot.core.reader.vocab.flags import FLAG_RULES
from roofbot.core.reader.vocab.layout import LAYOUT_RULES
from roofbot.core.reader.vocab.memory import MEMORY_RULES
from roofbot.core.reader.vocab.model import MODEL_RULES
from roofbot.core.reader.vocab.rate import RATE_RULES

RULES: tuple[Rule[Any], ...] = (
    *DEVICE_RULES, *LAYOUT_RULES, *FLAG_RULES, *MEMORY_RULES, *RATE_RULES, *MODEL_RULES,
)  # fmt: skip
"""Every input rule the reader runs, each once over each text field."""
