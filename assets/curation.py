"""Curation: `curated_skills`, one domain partition at a time (or a range in one run)."""

import warnings

import dagster as dg

from assets.partitions import domain_partitions
from resources.lake import LakeResource
from skill2env.curation.partition import curate_partition
from skill2env.formatting import markdown_table
from skill2env.lake.lake import TableWrite
from skill2env.lake.sqlfiles import load_sql

CODE_VERSION = "curation-1"

# A single-run backfill policy is how a partition range runs as one run; its "beta" label is noise for users.
warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")


@dg.asset(
    partitions_def=domain_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    deps=["skills"],
    group_name="catalog",
    kinds={"duckdb"},
    pool="lake",
)
def curated_skills(context: dg.AssetExecutionContext, lake: LakeResource) -> dg.MaterializeResult:
    """One row per skill of a domain: a verdict per criterion (practical, compatible, feasible, safe)."""
    store = lake.lake()
    domains = list(context.partition_keys)
    writes = []
    for domain in domains:
        skills = store.query(load_sql("queries/skills_of_domain"), {"domain": domain})
        writes.append(TableWrite("curated_skills", curate_partition(skills, domain), partition_key=domain))
        context.log.info(f"curated {skills.height} skills of domain {domain}")
    store.write(writes, run_id=context.run.run_id, code_version=CODE_VERSION)
    funnel = store.query(load_sql("queries/funnel_for_domains"), {"domains": domains})
    curated = sum(int(w.frame.get_column("curated").sum()) for w in writes)
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": sum(w.frame.height for w in writes),
            "curated": curated,
            "funnel": dg.MetadataValue.md(markdown_table(funnel, 40)),
        }
    )
