"""Partition keys of the lake's tables."""

from __future__ import annotations


def stage_partition(domain: str, iteration: int) -> str:
    """The lake partition a stage writes for one domain at one iteration."""
    return f"{domain}@i{iteration}"
