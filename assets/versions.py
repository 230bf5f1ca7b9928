"""Code versions: each asset's is a digest of the source it runs, so a code change marks it stale.

A digest rather than a hand-kept constant per asset: a constant is only as good as the memory of
whoever edits the code, and a stale materialization that looks current is the failure we want to
avoid. The price is an occasional false "code changed" after an edit that changes nothing the asset
does (a comment, a helper it never calls): a re-materialization too many, never one too few.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import dagster as dg

SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""Where the top-level packages `assets`, `resources` and `skill2env` sit side by side (the checkout,
or site-packages for an installed wheel)."""
SOURCE_SUFFIXES = frozenset({".py", ".sql", ".yaml", ".yml", ".j2", ".sh", ".toml", ".json"})
COMMON_SOURCES = ("assets/partitions.py", "assets/progress.py", "resources", "skill2env/lake", "skill2env/sql",
                  "skill2env/home.py", "skill2env/thresholds.py")  # fmt: skip
"""What every asset runs: the lake and its SQL, the resources, the partitions."""
MODEL_SOURCES = ("skill2env/llm",)
STAGE_SOURCES = ("assets/iterations.py", "skill2env/hardening", "skill2env/validation", "skill2env/agent",
                 "skill2env/sandbox", "skill2env/rubric", "skill2env/tasks", "skill2env/kits",
                 *MODEL_SOURCES)  # fmt: skip

SOURCES: dict[str, tuple[str, ...]] = {
    "skills": ("assets/catalog.py", "skill2env/catalog"),
    "skill_files": ("assets/catalog.py", "skill2env/catalog"),
    "curated_skills": ("assets/curation.py", "skill2env/curation", "skill2env/parallel.py", *MODEL_SOURCES),
    "pattern_library": ("assets/patterns.py", "skill2env/patterns"),
    "pattern_selections": ("assets/patterns.py", "skill2env/patterns", *MODEL_SOURCES),
    "blueprints": ("assets/tasks.py", "skill2env/tasks", "skill2env/kits", "skill2env/rubric"),
    "tasks": ("assets/tasks.py", "skill2env/tasks", "skill2env/kits", "skill2env/rubric"),
    "sft_trajectories": ("assets/iterations.py", "skill2env/exports"),
    "rl_environments": ("assets/rl_export.py", "skill2env/exports", "skill2env/tasks"),
    "service_graph": ("assets/compoworld.py", "skill2env/compoworld", *MODEL_SOURCES),
    "compo_tasks": ("assets/compoworld.py", "skill2env/compoworld", *MODEL_SOURCES),
    "compo_rollouts": ("assets/compoworld.py", "skill2env/compoworld", "skill2env/agent", *MODEL_SOURCES),
}
"""Per asset (iteration stages: `STAGE_SOURCES`), the files and folders of what it runs, besides
`COMMON_SOURCES`."""


def _files(path: Path) -> Iterable[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        yield from (
            p
            for p in sorted(path.rglob("*"))
            if p.is_file() and p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts
        )


@cache
def source_digest(paths: tuple[str, ...]) -> str:
    """The first 16 hex digits of SHA-256 over the names and bytes of every source file under `paths`
    (relative to `SOURCE_ROOT`; a path that is not there counts as empty)."""
    digest = hashlib.sha256()
    for relative in sorted(set(paths)):
        for file in _files(SOURCE_ROOT / relative):
            digest.update(file.relative_to(SOURCE_ROOT).as_posix().encode() + b"\0")
            digest.update(file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def sources_of(key: dg.AssetKey) -> tuple[str, ...]:
    name = key.to_user_string()
    own = STAGE_SOURCES if name.startswith("iteration_") else SOURCES.get(name, ())
    return (*own, *COMMON_SOURCES)


def code_version(key: dg.AssetKey) -> str:
    return source_digest(sources_of(key))


def with_code_versions(assets: Iterable[dg.AssetsDefinition]) -> list[dg.AssetsDefinition]:
    """`assets`, each spec given `code_version(key)` unless it declares its own."""
    return [
        definition.map_asset_specs(
            lambda spec: spec if spec.code_version else spec.replace_attributes(code_version=code_version(spec.key))
        )
        for definition in assets
    ]
