"""The skill catalog: `skills` and `skill_files`, written together from one walk of the skills root."""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl

from assets.partitions import DOMAIN_PARTITIONS_NAME
from assets.progress import progress_logger
from resources.lake import LakeResource
from skill2env.catalog.catalog import Catalog, catalog_skills
from skill2env.formatting import markdown_table
from skill2env.home import default_skills_root
from skill2env.lake.lake import TableWrite

CODE_VERSION = "catalog-1"


class CatalogConfig(dg.Config):
    skills_root: str = str(default_skills_root())
    """Folder to walk for skills (any depth); `$SKILL2ENV_SKILLS` or the bundled examples by default."""
    workers: int = 0
    """Profiling processes; 0 picks one per CPU core."""


def _counts(frame: pl.DataFrame, column: str) -> dg.MetadataValue:
    return dg.MetadataValue.md(markdown_table(frame.group_by(column).len().sort("len", descending=True), 30))


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "skills",
            description="One row per skill folder: frontmatter, spec findings, requirements, signals, domain.",
            group_name="catalog",
            kinds={"duckdb"},
        ),
        dg.AssetSpec(
            "skill_files",
            description="One row per file of a skill folder: size, sha256, kind, language.",
            group_name="catalog",
            kinds={"duckdb"},
        ),
    ],
    pool="lake",
)
def skill_catalog(
    context: dg.AssetExecutionContext, config: CatalogConfig, lake: LakeResource
) -> Iterator[dg.MaterializeResult]:
    """Walk the skills root, profile every skill folder, append a new version of both tables."""
    report = progress_logger(context, "skill folders profiled")
    catalog = catalog_skills(Path(config.skills_root), workers=config.workers or None, progress=report)
    lake.lake().write(
        [TableWrite("skills", catalog.skills), TableWrite("skill_files", catalog.skill_files)],
        run_id=context.run.run_id,
        code_version=CODE_VERSION,
    )
    _register_domains(context.instance, catalog)
    yield dg.MaterializeResult(
        asset_key="skills",
        metadata={
            "dagster/row_count": catalog.skills.height,
            "skills_root": config.skills_root,
            "domains": _counts(catalog.skills, "domain"),
            "status": _counts(catalog.skills, "status"),
            "preview": dg.MetadataValue.md(markdown_table(catalog.skills.select("path", "name", "status", "domain"))),
        },
    )
    yield dg.MaterializeResult(
        asset_key="skill_files",
        metadata={
            "dagster/row_count": catalog.skill_files.height,
            "kinds": _counts(catalog.skill_files, "kind"),
        },
    )


def _register_domains(instance: dg.DagsterInstance, catalog: Catalog) -> None:
    known = set(instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME))
    new_domains = [domain for domain in catalog.domains if domain not in known]
    if new_domains:
        instance.add_dynamic_partitions(DOMAIN_PARTITIONS_NAME, new_domains)
