"""roofbot: a roofline guard for repositories of LLM-inference benchmark records."""

__version__ = "0.1.0"
