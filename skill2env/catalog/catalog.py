"""Catalog a skills root: discover folders, profile them in parallel, return table frames."""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import polars as pl

from skill2env.catalog.discover import SkillFolder, discover_skills
from skill2env.catalog.profile import profile_skill
from skill2env.catalog.tables import SKILL_FILES_SCHEMA, SKILLS_SCHEMA, catalog_frames

ProgressCallback = Callable[[int], None]
"""Called with the number of skills profiled so far."""

CHUNK_SIZE = 128
INLINE_BELOW = 256
"""Roots with fewer skill folders than this are profiled in-process: spawning workers costs more."""


class SkillsRootError(ValueError):
    """The skills root does not exist or is not a directory."""


@dataclass
class Catalog:
    skills: pl.DataFrame
    skill_files: pl.DataFrame

    @property
    def domains(self) -> list[str]:
        return sorted(self.skills.get_column("domain").drop_nulls().unique().to_list())


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def profile_chunk(folders: list[SkillFolder]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Worker entry point: profile a chunk of folders into (`skills`, `skill_files`) frames."""
    return catalog_frames([profile_skill(folder) for folder in folders])


def catalog_skills(root: Path, *, workers: int | None = None, progress: ProgressCallback | None = None) -> Catalog:
    """Catalog every skill folder under `root`. Bad content becomes rows with a status, not errors."""
    if not root.is_dir():
        raise SkillsRootError(f"skills root {root} does not exist or is not a directory")
    folders = discover_skills(root)
    head = list(islice(folders, INLINE_BELOW))
    workers = default_workers() if workers is None else workers
    if len(head) < INLINE_BELOW or workers <= 1:
        frames = _profile_inline([*head, *folders], progress)
    else:
        frames = _profile_parallel(_chunks([*head], folders), workers, progress)
    skills_parts, files_parts = zip(*frames, strict=True) if frames else ((), ())
    return Catalog(
        skills=_concat(skills_parts, SKILLS_SCHEMA).sort("path"),
        skill_files=_concat(files_parts, SKILL_FILES_SCHEMA).sort("skill_path", "path"),
    )


def _concat(parts: Iterable[pl.DataFrame], schema: pl.Schema) -> pl.DataFrame:
    frames = list(parts)
    return pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=schema)


def _chunks(head: list[SkillFolder], rest: Iterator[SkillFolder]) -> Iterator[list[SkillFolder]]:
    for start in range(0, len(head), CHUNK_SIZE):
        yield head[start : start + CHUNK_SIZE]
    while chunk := list(islice(rest, CHUNK_SIZE)):
        yield chunk


def _profile_inline(
    folders: list[SkillFolder], progress: ProgressCallback | None
) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    frames = []
    for start in range(0, len(folders), CHUNK_SIZE):
        chunk = folders[start : start + CHUNK_SIZE]
        frames.append(profile_chunk(chunk))
        if progress:
            progress(start + len(chunk))
    return frames


def _profile_parallel(
    chunks: Iterator[list[SkillFolder]], workers: int, progress: ProgressCallback | None
) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    # Spawned (not forked) workers: the caller may be a threaded Dagster process.
    context = multiprocessing.get_context("spawn")
    frames: list[tuple[pl.DataFrame, pl.DataFrame]] = []
    done = 0
    in_flight: deque[Future[tuple[pl.DataFrame, pl.DataFrame]]] = deque()
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for chunk in chunks:
            in_flight.append(pool.submit(profile_chunk, chunk))
            if len(in_flight) >= workers * 4:
                done = _collect(in_flight.popleft(), frames, done, progress)
        while in_flight:
            done = _collect(in_flight.popleft(), frames, done, progress)
    return frames


def _collect(
    future: Future[tuple[pl.DataFrame, pl.DataFrame]],
    frames: list[tuple[pl.DataFrame, pl.DataFrame]],
    done: int,
    progress: ProgressCallback | None,
) -> int:
    result = future.result()
    frames.append(result)
    done += result[0].height
    if progress:
        progress(done)
    return done
