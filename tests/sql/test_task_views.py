"""The task tables and views: newest write per partition, task files, the leak report by domain and author."""

from __future__ import annotations

from task_samples import AUTHOR, DOMAIN, billing_blueprint

from skill2env.lake.lake import Lake, TableWrite
from skill2env.tasks.records import TaskFile, TaskRecord, TaskStatus
from skill2env.tasks.tables import blueprints_frame, task_files_frame, tasks_frame

FILES = (TaskFile("task.toml", "task", 10, "a" * 64, "toml"), TaskFile("environment/workspace/a.csv", "workspace",
         5, "b" * 64, "csv"))  # fmt: skip


def record(task: str, status: TaskStatus, checked: int | None, leaked: int | None, **extra: object) -> TaskRecord:
    stored = status in (TaskStatus.built, TaskStatus.rejected)
    fields: dict[str, object] = {
        "task_id": f"{task}-i0", "task_name": task, "status": status, "domain": DOMAIN, "author": AUTHOR,
        "leak_checked": checked, "leak_leaked": leaked, "task_digest": f"d-{task}" if stored else None,
        "store_path": f"objects/sha256/00/d-{task}" if stored else None, "files": FILES if stored else (),
    }  # fmt: skip
    return TaskRecord(**(fields | extra))  # type: ignore[arg-type]


def write(lake: Lake, partition: str, records: list[TaskRecord], run: str) -> None:
    writes = [TableWrite("tasks", tasks_frame(records), partition),
              TableWrite("task_files", task_files_frame(records), partition)]  # fmt: skip
    lake.write(writes, run_id=run, code_version="t")


def test_blueprints_view_holds_the_json_and_lineage(lake: Lake) -> None:
    blueprint = billing_blueprint()
    lake.write([TableWrite("blueprints", blueprints_frame([(blueprint, AUTHOR)]), DOMAIN)], run_id="r1",
               code_version="t")  # fmt: skip
    row = lake.query("SELECT * FROM blueprints").row(0, named=True)
    assert (row["task_name"], row["iteration"], row["blueprint_digest"]) == (blueprint.task_name, 0, blueprint.digest())
    assert row["patterns"] == blueprint.pattern_ids and row["n_rubric_items"] == 5
    assert lake.query("SELECT json_extract_string(blueprint, '$.skill.name') FROM blueprints").item() == "docling"


def test_tasks_views_show_the_newest_write_of_each_partition(lake: Lake) -> None:
    write(lake, DOMAIN, [record("a", TaskStatus.built, 6, 0), record("b", TaskStatus.rejected, 6, 2)], "r1")
    write(lake, DOMAIN, [record("a", TaskStatus.built, 6, 0)], "r2")
    write(lake, "import:incoming", [record("x", TaskStatus.error, None, None, reasons=("missing task.toml",),
                                           source="import:incoming")], "r3")  # fmt: skip

    tasks = lake.query("SELECT task_id, status, run_id, partition_key, reasons FROM tasks ORDER BY task_id")
    assert tasks.rows() == [("a-i0", "built", "r2", DOMAIN, []),
                            ("x-i0", "error", "r3", "import:incoming", ["missing task.toml"])]  # fmt: skip
    assert lake.query("SELECT count(*) FROM tasks_versions").item() == 4
    files = lake.query("SELECT task_id, area, format FROM task_files ORDER BY path")
    assert files.rows() == [("a-i0", "workspace", "csv"), ("a-i0", "task", "toml")]


def test_leak_report_by_domain_and_author(lake: Lake) -> None:
    write(lake, DOMAIN, [record("a", TaskStatus.built, 6, 0), record("b", TaskStatus.rejected, 6, 3),
                         record("c", TaskStatus.skipped, None, None, task_id=None)], "r1")  # fmt: skip
    write(lake, "finance-markets", [record("f", TaskStatus.built, 4, 1, domain="finance-markets",
                                           author="model:qwen")], "r1")  # fmt: skip

    report = lake.query("SELECT * FROM leak_report")
    assert report.select("domain", "author", "tasks", "tasks_leaking", "values_checked", "values_leaked").rows() == [
        ("*", "*", 3, 2, 16, 4),
        ("finance-markets", "*", 1, 1, 4, 1),
        ("finance-markets", "model:qwen", 1, 1, 4, 1),
        (DOMAIN, "*", 2, 1, 12, 3),
        (DOMAIN, AUTHOR, 2, 1, 12, 3),
    ]
    assert report.get_column("leak_rate").to_list() == [0.25, 0.25, 0.25, 0.25, 0.25]
