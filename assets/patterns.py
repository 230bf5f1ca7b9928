"""The difficulty-pattern pool and per-skill pattern selection."""

import warnings

import dagster as dg
import polars as pl

from assets.partitions import domain_partitions
from assets.progress import each_partition, progress_logger
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.formatting import markdown_table
from skill2env.kits import KITS
from skill2env.lake.lake import TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.parallel import default_workers
from skill2env.patterns.batch import INLINE_BELOW, select_partitions
from skill2env.patterns.library import current_pool, pool_from_library
from skill2env.patterns.model_chooser import model_pattern_chooser
from skill2env.patterns.selection import Selection, SelectionPolicy
from skill2env.patterns.tables import library_frame, selections_frame
from skill2env.patterns.traits import SkillProfile

LIBRARY_CODE_VERSION = "patterns-1"
SELECTION_CODE_VERSION = "selection-1"

# A single-run backfill policy is how a partition range runs as one run; its "beta" label is noise for users.
warnings.filterwarnings("ignore", category=dg.BetaWarning, message=".*backfill_policy.*")


@dg.asset(group_name="patterns", kinds={"duckdb"}, pool="lake")
def pattern_library(context: dg.AssetExecutionContext, lake: LakeResource) -> dg.MaterializeResult:
    """The pool of difficulty patterns: the seed files plus the additions accepted from hardening."""
    store = lake.lake()
    pool = current_pool(store.query("SELECT * FROM pattern_additions"))
    frame = library_frame(pool, {p.id: [name for name, kit in KITS.items() if p.id in kit.patterns] for p in pool})
    store.write([TableWrite("pattern_library", frame)], run_id=context.run.run_id, code_version=LIBRARY_CODE_VERSION)
    by_capability = frame.group_by("capability", "origin").len().sort("capability", "origin")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": frame.height,
            "pool_digest": pool.digest,
            "buildable_offline": frame.filter(pl.col("built_by").list.len() > 0).height,
            "by_capability": dg.MetadataValue.md(markdown_table(by_capability)),
        }
    )


class SelectionConfig(dg.Config):
    min_patterns: int = 3
    max_patterns: int = 5
    """How many patterns each curated skill gets (the paper's P_κ)."""
    workers: int = 0
    """Selection processes for the rules; 0 picks one per CPU core (a model chooser runs in-process)."""


@dg.asset(
    partitions_def=domain_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    deps=["curated_skills", "pattern_library", "skill_files"],
    group_name="patterns",
    kinds={"duckdb"},
    pool="lake",
)
def pattern_selections(
    context: dg.AssetExecutionContext, config: SelectionConfig, lake: LakeResource, llm: LlmResource
) -> dg.MaterializeResult:
    """For each curated skill of a domain: 3–5 compatible patterns that fit one goal, each with a rationale."""
    store = lake.lake()
    pool = pool_from_library(store.query("SELECT pattern, source FROM pattern_library"))
    policy = SelectionPolicy(min_patterns=config.min_patterns, max_patterns=config.max_patterns)
    domains = list(context.partition_keys)
    report = progress_logger(context, "skills given patterns")
    inputs_sql = load_sql("queries/selection_inputs_of_domain")
    with llm.session(context, store) as models, store.reading() as reader:
        chooser = model_pattern_chooser(models)
        context.log.info(f"pattern chooser: {chooser.chooser if chooser else models.why_not_configured('author')}")
        if chooser:  # a model's clients stay in this process: one skill after another
            selected: dict[str, list[Selection]] = {}
            for domain in each_partition(context):
                rows = reader.query(inputs_sql, {"domain": domain})
                selected[domain] = [
                    chooser.select(SkillProfile.from_row(r), pool, policy) for r in rows.iter_rows(named=True)
                ]
                report(sum(len(s) for s in selected.values()))
        else:
            counts = reader.query(load_sql("queries/curated_counts_by_domain"), {"domains": domains})
            skills = int(counts.get_column("skills").sum() or 0)
            workers = 1 if skills < INLINE_BELOW else config.workers or default_workers()
            if workers > 1:
                context.log.info(f"pattern selection: {skills} curated skills over {workers} worker processes")
            partitions = each_partition(context) if workers == 1 else iter(domains)
            selected = select_partitions(
                ((domain, reader.query(inputs_sql, {"domain": domain})) for domain in partitions),
                pool, policy, workers=workers, progress=report,
            )  # fmt: skip
    writes = [
        TableWrite("pattern_selections", selections_frame(selections, pool.digest), partition_key=domain)
        for domain, selections in selected.items()
    ]
    done = sum(len(selections) for selections in selected.values())
    store.write(writes, run_id=context.run.run_id, code_version=SELECTION_CODE_VERSION)
    frame = store.query("SELECT status, count(DISTINCT skill_id) AS skills FROM pattern_selections GROUP BY 1")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": sum(w.frame.height for w in writes),
            "skills": done,
            "domains": len(domains),
            "status": dg.MetadataValue.md(markdown_table(frame)),
        }
    )
