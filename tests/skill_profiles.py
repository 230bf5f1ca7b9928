"""Skill profiles as a pipeline run builds them (`selection_inputs_of_domain`), straight from a catalog:
dependency names, the extensions of the files the workflow handles (packaging files left out) and
file kinds."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from skill2env.catalog.catalog import catalog_skills
from skill2env.patterns.traits import SkillProfile


def profiles_of(root: Path, paths: set[str] | None = None) -> dict[str, SkillProfile]:
    """Every skill under `root` (or those of `paths`) by path."""
    found = catalog_skills(root, workers=2)
    skills, files = found.skills, found.skill_files
    if paths is not None:
        skills = skills.filter(pl.col("path").is_in(sorted(paths)))
    profiles = {}
    for row in skills.iter_rows(named=True):
        mine = files.filter(pl.col("skill_path") == row["path"])
        own = mine.filter(pl.col("kind") != "config")["path"]
        profiles[row["path"]] = SkillProfile.from_row({
            **row,
            "dependency_names": [d["name"] for d in row["dependencies"] or []],
            "extensions": sorted({p.rsplit(".", 1)[-1].lower() for p in own if "." in p.rsplit("/", 1)[-1]}),
            "file_kinds": sorted(set(mine["kind"])),
        })  # fmt: skip
    return profiles
