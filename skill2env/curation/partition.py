"""Curate domain partitions: `skills` rows in, `curated_skills` rows out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import polars as pl

from skill2env.catalog.models import SkillRecord, SkillStatus
from skill2env.catalog.tables import skill_record_from_row
from skill2env.curation.curate import curate_skill
from skill2env.curation.curator import Curator
from skill2env.curation.models import CurationRecord, Outcome, SkillVerdict
from skill2env.curation.tables import CURATED_SKILLS_SCHEMA, curation_frame, curation_row
from skill2env.parallel import map_chunks

CHUNK_SIZE = 1024
"""Skills per chunk: each chunk costs a lake connection and a query, so chunks are large."""
_KEYS_SCHEMA = pl.Schema({"domain": pl.String, "skill_id": pl.String, "path": pl.String})
INLINE_BELOW = 512
"""Fewer skills than this are curated in-process: spawning workers costs more."""


class SkillSource(Protocol):
    """Where curation reads `skills` rows. It must pickle: worker processes load their own slices,
    so the large rows never pass through the coordinating process."""

    def keys(self, domains: Sequence[str]) -> pl.DataFrame:
        """`domain`, `skill_id` and `path` of every skill of `domains`, in domain then path order."""
        ...

    def rows(self, domain: str, first_path: str, last_path: str) -> Iterable[dict[str, Any]]:
        """The `skills` rows of `domain` with `first_path <= path <= last_path`, in path order, as dicts."""
        ...


@dataclass(frozen=True)
class FrameSource:
    """A `SkillSource` over frames in memory (one per domain)."""

    frames: Mapping[str, pl.DataFrame]

    def keys(self, domains: Sequence[str]) -> pl.DataFrame:
        frames = [self.frames[domain].select(pl.lit(domain).alias("domain"), "skill_id", "path") for domain in domains]
        return pl.concat(frames).sort("domain", "path") if frames else pl.DataFrame(schema=_KEYS_SCHEMA)

    def rows(self, domain: str, first_path: str, last_path: str) -> Iterable[dict[str, Any]]:
        path = pl.col("path")
        return self.frames[domain].filter((path >= first_path) & (path <= last_path)).sort("path").iter_rows(named=True)


@dataclass(frozen=True)
class CurationChunk:
    """A path range of one domain's skills, with the content duplicates found over the whole domain."""

    source: SkillSource
    domain: str
    first_path: str
    last_path: str
    duplicates: Mapping[str, str]
    """Path → the first path (in path order) holding the same content, for the paths of this chunk."""


def parse_failure(record: SkillRecord) -> str | None:
    """Why a skill fails the funnel's second stage (frontmatter parsed, with a name and a description)."""
    if record.status != SkillStatus.ok:
        return f"unparsed:{record.status.value}"
    if not record.name or not record.description:
        return "unparsed:missing-name-or-description"
    return None


def duplicate_paths(skills: pl.DataFrame) -> dict[str, str]:
    """Every copy of a skill's content but the first path (same `skill_id` = same bytes) → that first path."""
    first: dict[str, str] = {}
    duplicates: dict[str, str] = {}
    for skill_id, path in sorted(zip(skills["skill_id"], skills["path"], strict=True), key=lambda pair: pair[1]):
        original = first.setdefault(skill_id, path)
        if original != path:
            duplicates[path] = original
    return duplicates


def _mark_duplicate(curation: CurationRecord, original: str) -> None:
    reason = f"duplicate:content-of:{original}"
    curation.practical.outcome = Outcome.fail
    curation.practical.reasons.append(reason)
    curation.curated = False
    curation.verdict = SkillVerdict.rejected
    curation.reasons.insert(0, reason)


def curate_chunk(chunk: CurationChunk, curator: Curator | None = None) -> pl.DataFrame:
    """`curated_skills` rows for a slice of one domain's `skills` rows (worker entry point)."""
    rows = []
    for row in chunk.source.rows(chunk.domain, chunk.first_path, chunk.last_path):
        record = skill_record_from_row(row)
        curation = curate_skill(record, curator, domain=chunk.domain)
        if record.path in chunk.duplicates:
            _mark_duplicate(curation, chunk.duplicates[record.path])
        rows.append(curation_row(curation, parse_failure=parse_failure(record)))
    return curation_frame(rows)


def curate_partition(skills: pl.DataFrame, domain: str, curator: Curator | None = None) -> pl.DataFrame:
    """`curated_skills` rows for the skills of one domain, in-process."""
    if skills.is_empty():
        return curation_frame([])
    paths = skills.get_column("path").sort()
    chunk = CurationChunk(FrameSource({domain: skills}), domain, paths[0], paths[-1], duplicate_paths(skills))
    return curate_chunk(chunk, curator)


def curate_partitions(
    sizes: Mapping[str, int],
    source: SkillSource,
    *,
    workers: int,
    curator: Curator | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """Curate several domains (`sizes`: domain → skill count). Each chunk is a path range that the
    process curating it loads from `source`, so memory holds a few chunks, not the catalog.

    Chunks are spread over worker processes; in-process with a curator (a model-backed curator
    holds clients that do not cross process boundaries) or when there is little to do.
    """
    if curator is not None or sum(sizes.values()) < INLINE_BELOW:
        workers = 1
    done = 0
    by_domain: dict[str, list[pl.DataFrame]] = {domain: [] for domain in sizes}

    def collect(frame: pl.DataFrame) -> None:
        nonlocal done
        done += frame.height
        if progress:
            progress(done)

    chunks = _chunks(sizes, source)
    if curator is not None:
        results: Iterator[tuple[str, pl.DataFrame]] = ((c.domain, curate_chunk(c, curator)) for c in chunks)
    else:
        results = map_chunks(_curate_tagged, chunks, workers=workers, on_result=lambda pair: collect(pair[1]))
    for domain, frame in results:
        if curator is not None:
            collect(frame)
        by_domain[domain].append(frame)
    return {
        domain: pl.concat(frames) if frames else pl.DataFrame(schema=CURATED_SKILLS_SCHEMA)
        for domain, frames in by_domain.items()
    }


def _curate_tagged(chunk: CurationChunk) -> tuple[str, pl.DataFrame]:
    return chunk.domain, curate_chunk(chunk)


def _chunks(sizes: Mapping[str, int], source: SkillSource) -> Iterator[CurationChunk]:
    for (domain,), keys in source.keys(list(sizes)).group_by("domain", maintain_order=True):
        duplicates = duplicate_paths(keys)
        paths = keys.get_column("path").to_list()
        for start in range(0, len(paths), CHUNK_SIZE):
            part = paths[start : start + CHUNK_SIZE]
            mine = {path: duplicates[path] for path in part if path in duplicates}
            yield CurationChunk(source, str(domain), part[0], part[-1], mine)
