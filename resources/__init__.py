"""Dagster resources: one per external system."""

from resources.lake import LakeResource

__all__ = ["LakeResource"]
