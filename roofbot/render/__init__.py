"""Rendering results for people and machines: JSON (the contract), text, Markdown (Jinja)."""
