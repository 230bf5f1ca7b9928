"""Every plot of `skill2env report` — hardening curve, validation, hack-probe and curation funnels — as PNG
files and Markdown sections with the lake's numbers, and the hack-probe funnel on the validations asset."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import polars as pl
import pytest
from export_lake import build_export_lake, filled
from PIL import Image

from assets.iterations import _funnels
from skill2env.catalog.tables import SKILLS_SCHEMA
from skill2env.curation.tables import CURATED_SKILLS_SCHEMA
from skill2env.exports.plots import hack_probe_funnel_png, hack_probe_totals
from skill2env.exports.report import write_report
from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite
from skill2env.validation.hack_probes.tables import HACK_PROBES_SCHEMA

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
STRATEGIES = ("fake_output", "empty_files", "symlink_escape")
PROBES = {
    # (task, iteration, domain): the status of each strategy, in STRATEGIES' order
    ("t1", 0, "data"): ("passed", "passed", "passed"),  # resisted every hack
    ("t2", 0, "data"): ("passed", "failed", "passed"),  # beaten once: the gate rejects it
    ("t3", 0, "data"): ("passed", "passed", "infra_error"),  # neither resisted nor rejected
    ("t4", 0, "ops"): ("passed", "passed", "passed"),
    ("t1", 1, "data"): ("passed", "passed", "passed"),
}
TOTALS = [
    # iteration, tasks probed, resisted, rejected; probes run, hacks caught, hacks that beat a task, infra errors
    (0, 4, 2, 1, 12, 10, 1, 1),
    (1, 1, 1, 0, 3, 3, 0, 0),
]
SKILLS = {
    # path: (domain, the criterion that fails or None)
    "data/clean": ("data", None),
    "data/essay": ("data", "practical"),
    "data/pipe": ("data", "safe"),
    "ops/triage": ("ops", None),
}


def probe_rows() -> pl.DataFrame:
    rows = [
        filled(HACK_PROBES_SCHEMA, task_id=task, iteration=k, domain=domain, strategy=strategy, family="fake_content",
               status=status, reward=1.0 if status == "failed" else 0.0, items_passed="[]", evidence="test",
               backend="bwrap")
        for (task, k, domain), statuses in PROBES.items()
        for strategy, status in zip(STRATEGIES, statuses, strict=True)
    ]  # fmt: skip
    return pl.DataFrame(rows, schema=HACK_PROBES_SCHEMA)


def write_probes_and_skills(lake: Lake) -> None:
    skills = [filled(SKILLS_SCHEMA, skill_id=f"id-{path}", source=path.split("/")[0], path=path,
                     skill_md_file="SKILL.md", status="ok", domain=domain, name=path, schema_version=1)
              for path, (domain, _) in SKILLS.items()]  # fmt: skip
    curated = []
    for path, (domain, failing) in SKILLS.items():
        verdicts = {c: "fail" if c == failing else "pass" for c in ("practical", "compatible", "feasible", "safe")}
        curated.append(filled(CURATED_SKILLS_SCHEMA, skill_id=f"id-{path}", path=path, domain=domain, parsed=True,
                              curated=failing is None, verdict="kept" if failing is None else "rejected",
                              verdicts="{}", schema_version=1, **verdicts))  # fmt: skip
    lake.write(
        [
            TableWrite("hack_probes", probe_rows(), "all"),
            TableWrite("skills", pl.DataFrame(skills, schema=SKILLS_SCHEMA), "all"),
            TableWrite("curated_skills", pl.DataFrame(curated, schema=CURATED_SKILLS_SCHEMA), "all"),
        ],
        run_id="report-funnels",
        code_version="test",
    )


@pytest.fixture
def lake(tmp_path: Path) -> Lake:
    built = build_export_lake(Home(tmp_path / "home"))
    write_probes_and_skills(built)
    return built


def test_hack_probe_totals_count_tasks_and_probes_per_iteration(lake: Lake) -> None:
    totals = hack_probe_totals(lake.query("SELECT * FROM hack_probe_funnel"))
    assert totals.columns == ["iteration", "tasks_probed", "tasks_resisted", "tasks_rejected", "probes_run",
                              "hacks_caught", "hacks_beat_task", "probe_infra_errors"]  # fmt: skip
    assert totals.rows() == TOTALS


def test_the_hack_probe_funnel_draws_with_and_without_probes(lake: Lake) -> None:
    funnel = lake.query("SELECT * FROM hack_probe_funnel")
    image = Image.open(io.BytesIO(hack_probe_funnel_png(funnel)))
    assert image.format == "PNG" and image.size == (1100, 420)
    assert hack_probe_funnel_png(funnel.clear()).startswith(PNG_MAGIC)
    assert hack_probe_totals(funnel.clear()).is_empty()


def test_the_report_writes_every_plot_and_its_numbers(lake: Lake, tmp_path: Path) -> None:
    out = tmp_path / "report"
    report = write_report(lake, out)

    names = ("hardening_curve", "validation_funnel", "hack_probe_funnel", "curation_funnel")
    assert sorted(p.name for p in report.plots) == sorted(f"{n}.png" for n in names)
    for name in names:
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(PNG_MAGIC) and len(png) > 10_000, name  # a drawn figure, not an empty canvas
    text = report.markdown.read_text()
    for title, name in (("Hack-probe funnel", "hack_probe_funnel"), ("Curation funnel", "curation_funnel")):
        assert f"## {title} (`{name}`)" in text
        assert f"![{title}]({name}.png)" in text
    hack_section = text.split("## Hack-probe funnel")[1].split("\n## ")[0]
    for iteration, *counts in TOTALS:
        assert "| " + " | ".join(str(v) for v in (iteration, *counts)) + " |" in hack_section
    curation_section = text.split("## Curation funnel")[1].split("\n## ")[0]
    # *: found 4, judged 4, parsed 4, practical 3, compatible 3, feasible 3, safe 2, curated 2 (50 %)
    assert "| * | 4 | 4 | 4 | 3 | 3 | 3 | 2 | 2 | 50.0 | 0 | 2 |" in curation_section
    assert "| data | 3 | 3 | 3 | 2 | 2 | 2 | 1 | 1 | 33.3 | 0 | 2 |" in curation_section


def test_the_validations_asset_metadata_holds_the_hack_probe_funnel(lake: Lake) -> None:
    first, second = _funnels(lake, 0), _funnels(lake, 1)

    prefix = "![Hack-probe funnel](data:image/png;base64,"
    plot = first["hack_probe_funnel_plot"].value
    assert isinstance(plot, str) and plot.startswith(prefix) and plot.endswith(")")
    assert base64.b64decode(plot[len(prefix) : -1]).startswith(PNG_MAGIC)
    counts = ("tasks_probed", "hack_probes_run", "hacks_caught", "tasks_rejected_by_hack_probes")
    assert [first[k].value for k in counts] == [4, 12, 10, 1]
    assert (second["tasks_probed"].value, second["hack_probes_run"].value) == (1, 3)
    assert second["tasks_rejected_by_hack_probes"].value == 0
    # the table shows this iteration's rows only; the plot every iteration so far
    assert "| * | 1 | * |" not in str(first["hack_probe_funnel"].value)
    assert "| * | 0 | * |" in str(first["hack_probe_funnel"].value)


def test_an_iteration_without_probes_reports_zeros(tmp_path: Path) -> None:
    empty = Lake(tmp_path / "lake.duckdb")
    empty.ensure_schema()
    metadata = _funnels(empty, 0)
    assert metadata["hack_probes_run"].value == 0 and metadata["tasks_rejected_by_hack_probes"].value == 0
    assert str(metadata["hack_probe_funnel_plot"].value).startswith("![Hack-probe funnel](data:image/png;base64,")
