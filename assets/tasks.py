"""Task authoring: `blueprints` and `tasks`, one domain partition at a time (or a range in one run)."""

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import dagster as dg

from assets.partitions import domain_partitions
from assets.progress import each_partition, progress_logger, start_logger
from resources.lake import LakeResource
from resources.llm import LlmResource, call_context
from skill2env.formatting import markdown_table
from skill2env.home import Home
from skill2env.lake.lake import TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.llm import ModelNotConfigured
from skill2env.tasks.authoring import AuthorLoadError
from skill2env.tasks.authors import AUTO, choose_author
from skill2env.tasks.build import Authored, author_tasks
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import blueprints_frame, task_files_frame, tasks_frame

CODE_VERSION = "tasks-1"


class TaskAuthoringConfig(dg.Config):
    author: str = AUTO
    """auto (the author role's model when it has an endpoint, else the world kits) | kits | model | none,
    or `package.module:attribute` of a custom author (an `Author` or a factory of one)."""
    skills_root: str = ""
    """Where the skill folders are now, copied from here into the task directories; '' = the root each
    skill's catalog row recorded (the folder the catalog walked)."""


@dg.multi_asset(
    specs=[
        dg.AssetSpec(
            "blueprints",
            deps=["pattern_selections"],
            description="One row per task blueprint (task name, iteration): the author-side contract, as JSON.",
            group_name="tasks",
            kinds={"duckdb"},
        ),
        dg.AssetSpec(
            "tasks",
            deps=["blueprints"],
            description="One row per task version or attempt: status, reasons, digests, leak figures "
            "(and `task_files`, one row per file of each stored task directory).",
            group_name="tasks",
            kinds={"duckdb"},
        ),
    ],
    partitions_def=domain_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    pool="lake",
)
def task_authoring(
    context: dg.AssetExecutionContext, config: TaskAuthoringConfig, lake: LakeResource, llm: LlmResource
) -> Iterator[dg.MaterializeResult]:
    """Draft a task for every skill with selected patterns, check it, store its Harbor directory."""
    store = lake.lake()
    tasks = TaskStore.of(Home.resolve(lake.home or None))
    try:
        author = choose_author(config.author, llm.settings(), log=store, context=call_context(context))
    except (ModelNotConfigured, AuthorLoadError) as exc:
        raise dg.Failure(description=str(exc)) from exc
    context.log.info(f"author: {author.name if author else 'none available (skills are recorded as skipped)'}")
    report, starting = progress_logger(context, "skills authored"), start_logger(context, "authoring")
    root = Path(config.skills_root) if config.skills_root else None
    writes, results = [], Authored()
    for domain in each_partition(context):
        skills = store.query(load_sql("queries/authoring_skills_of_domain"), {"domain": domain}).to_dicts()
        selections = store.query(load_sql("queries/authoring_selections_of_domain"), {"domain": domain}).to_dicts()
        authored = author_tasks(skills, selections, author, skills_root=root, store=tasks, progress=report,
                                starting=starting)  # fmt: skip
        writes += [
            TableWrite("blueprints", blueprints_frame(authored.blueprints), partition_key=domain),
            TableWrite("tasks", tasks_frame(authored.tasks), partition_key=domain),
            TableWrite("task_files", task_files_frame(authored.tasks), partition_key=domain),
        ]
        results.blueprints += authored.blueprints
        made = Counter(record.status.value for record in authored.tasks)
        context.log.info(
            f"{domain}: " + (", ".join(f"{n} {status}" for status, n in sorted(made.items())) or "no skills")
        )
        results.tasks += authored.tasks
    store.write(writes, run_id=context.run.run_id, code_version=CODE_VERSION)
    close = getattr(author, "close", None)
    if callable(close):
        close()  # a model author flushes its model-call ledger to the lake
    statuses = Counter(record.status.value for record in results.tasks)
    checked = sum(record.leak_checked or 0 for record in results.tasks)
    leaked = sum(record.leak_leaked or 0 for record in results.tasks)
    yield dg.MaterializeResult(
        asset_key="blueprints",
        metadata={"dagster/row_count": len(results.blueprints), "domains": len(context.partition_keys)},
    )
    yield dg.MaterializeResult(
        asset_key="tasks",
        metadata={
            "dagster/row_count": len(results.tasks),
            "author": author.name if author else "none",
            "status": dg.MetadataValue.md(markdown_table(tasks_frame(results.tasks).group_by("status").len())),
            "leak_rate": dg.MetadataValue.float(leaked / checked) if checked else dg.MetadataValue.text("n/a"),
            **{f"status/{status}": count for status, count in sorted(statuses.items())},
        },
    )
