"""Curation: `curated_skills`, one domain partition at a time (or a range in one run)."""

import warnings

import dagster as dg

from assets.partitions import domain_partitions
from assets.progress import progress_logger
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.curation.model_curator import model_curator
from skill2env.curation.partition import curate_partitions
from skill2env.exports.plots import METADATA_DPI, curation_funnel_png, markdown_image
from skill2env.formatting import markdown_table
from skill2env.lake.lake import TableWrite
from skill2env.lake.skill_source import LakeSkillSource
from skill2env.lake.sqlfiles import load_sql
from skill2env.parallel import default_workers

CODE_VERSION = "curation-1"

# A single-run backfill policy is how a partition range runs as one run; its "beta" label is noise for users.
warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")


class CurationConfig(dg.Config):
    workers: int = 0
    """Curation processes; 0 picks one per CPU core."""


@dg.asset(
    partitions_def=domain_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    deps=["skills"],
    group_name="catalog",
    kinds={"duckdb"},
    pool="lake",
)
def curated_skills(
    context: dg.AssetExecutionContext, config: CurationConfig, lake: LakeResource, llm: LlmResource
) -> dg.MaterializeResult:
    """One row per skill of a domain: a verdict per criterion (practical, compatible, feasible, safe)."""
    store = lake.lake()
    domains = list(context.partition_keys)
    counts = store.query(load_sql("queries/skill_counts_by_domain"), {"domains": domains})
    sizes = {domain: 0 for domain in domains} | dict(counts.iter_rows())
    report = progress_logger(context, "skills curated", sum(sizes.values()))
    with llm.session(context, store) as models:  # flushes the model-call ledger to the lake at the end
        curator = model_curator(models)
        context.log.info(f"curator: {curator.name if curator else models.why_not_configured('curator')}")
        curated = curate_partitions(
            sizes,
            LakeSkillSource(store.path, lock_timeout=store.lock_timeout, ducklake=store.ducklake),
            workers=config.workers or default_workers(),
            curator=curator,
            progress=report,
        )
    writes = [TableWrite("curated_skills", frame, partition_key=domain) for domain, frame in curated.items()]
    store.write(writes, run_id=context.run.run_id, code_version=CODE_VERSION)
    funnel = store.query(load_sql("queries/funnel_for_domains"), {"domains": domains})
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": sum(w.frame.height for w in writes),
            "curated": sum(int(w.frame.get_column("curated").sum()) for w in writes),
            "domains": len(domains),
            "curator": curator.name if curator else "rules-only",
            "funnel": dg.MetadataValue.md(markdown_table(funnel, 40)),
            "funnel_plot": dg.MetadataValue.md(
                markdown_image(curation_funnel_png(funnel, dpi=METADATA_DPI), "Curation funnel")
            ),
        }
    )
