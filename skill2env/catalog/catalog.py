"""Catalog a skills root: discover folders, profile them in parallel, return table frames."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import polars as pl

from skill2env.catalog.discover import SkillFolder, discover_skills
from skill2env.catalog.profile import profile_or_error
from skill2env.catalog.tables import SKILL_FILES_SCHEMA, SKILLS_SCHEMA, catalog_frames
from skill2env.parallel import default_workers, map_chunks

ProgressCallback = Callable[[int], None]
"""Called with the number of skills done so far."""

CHUNK_SIZE = 128
INLINE_BELOW = 256
"""Roots with fewer skill folders than this are profiled in-process: spawning workers costs more."""

Frames = tuple[pl.DataFrame, pl.DataFrame]


class SkillsRootError(ValueError):
    """The skills root does not exist or is not a directory."""


@dataclass
class Catalog:
    skills: pl.DataFrame
    skill_files: pl.DataFrame

    @property
    def domains(self) -> list[str]:
        return sorted(self.skills.get_column("domain").drop_nulls().unique().to_list())


def profile_chunk(folders: list[SkillFolder]) -> Frames:
    """Worker entry point: profile a chunk of folders into (`skills`, `skill_files`) frames."""
    return catalog_frames([profile_or_error(folder) for folder in folders])


def catalog_skills(root: Path, *, workers: int | None = None, progress: ProgressCallback | None = None) -> Catalog:
    """Catalog every skill folder under `root`. Bad content becomes rows with a status, not errors."""
    if not root.is_dir():
        raise SkillsRootError(f"skills root {root} does not exist or is not a directory")
    folders = discover_skills(root)
    head = list(islice(folders, INLINE_BELOW))
    workers = default_workers() if workers is None else workers
    if len(head) < INLINE_BELOW:
        workers = 1
    done = 0

    def count(frames: Frames) -> None:
        nonlocal done
        done += frames[0].height
        if progress:
            progress(done)

    results = list(map_chunks(profile_chunk, _chunks(head, folders), workers=workers, on_result=count))
    return Catalog(
        # Domain-major order keeps each domain's rows contiguous in the lake, so a per-domain
        # read (curation) skips the other domains' row groups instead of scanning the catalog.
        skills=concat_frames((r[0] for r in results), SKILLS_SCHEMA)
        .with_columns(root=pl.lit(str(root.resolve())))
        .sort("domain", "path", nulls_last=True),
        skill_files=concat_frames((r[1] for r in results), SKILL_FILES_SCHEMA).sort("skill_path", "path"),
    )


def concat_frames(parts: Iterable[pl.DataFrame], schema: pl.Schema) -> pl.DataFrame:
    frames = list(parts)
    return pl.concat(frames, how="vertical", rechunk=False) if frames else pl.DataFrame(schema=schema)


def _chunks(head: list[SkillFolder], rest: Iterator[SkillFolder]) -> Iterator[list[SkillFolder]]:
    for start in range(0, len(head), CHUNK_SIZE):
        yield head[start : start + CHUNK_SIZE]
    while chunk := list(islice(rest, CHUNK_SIZE)):
        yield chunk
