"""`skill2env report`: PNG plots and a Markdown summary of the lake, beside the paper's reference numbers.

out/report.md                 the summary: ours against the paper, then one table per view
out/hardening_curve.png       full-credit rate, mean reward and mean turns per iteration
out/validation_funnel.png     tasks passing each validation gate per iteration
out/hack_probe_funnel.png     hack probes run and caught, tasks probed and rejected by the gate, per iteration
out/curation_funnel.png       skills left after each curation criterion, by domain
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from skill2env.exports.plots import (
    ALL_DOMAINS,
    curation_funnel_png,
    hack_probe_funnel_png,
    hack_probe_totals,
    hardening_curve_png,
    validation_funnel_png,
)
from skill2env.exports.reference import PAPER_FULL_CREDIT_PCT, PAPER_MEAN_TURNS, PAPER_SOURCE
from skill2env.formatting import markdown_table
from skill2env.lake.ports import Snapshot

REPORT_FILE = "report.md"
TABLE_ROWS = 200
SECTIONS = {
    "task_set_stats": ("The task set beside the paper's", "SELECT * FROM task_set_stats"),
    "task_stats": ("Tasks per iteration", "SELECT * FROM task_stats"),
    "validation_funnel": ("Validation funnel", "SELECT * FROM validation_funnel"),
    "hack_probe_funnel": ("Hack-probe funnel", "SELECT * FROM hack_probe_funnel"),
    "hardening_curve": ("Hardening curve by domain", "SELECT * FROM hardening_curve"),
    "llm_usage": ("Model usage", "SELECT * FROM llm_usage"),
    "catalog_stats": ("Catalog statistics", "SELECT * FROM catalog_stats"),
    "curation_funnel": ("Curation funnel", "SELECT * FROM curation_funnel"),
}
"""view → (section title, query), in the report's order."""


@dataclass(frozen=True)
class Report:
    markdown: Path
    plots: list[Path]


def read_views(lake: Snapshot) -> dict[str, pl.DataFrame]:
    """Every view the report shows, read on one connection."""
    with lake.reading() as reader:
        return {view: reader.query(query) for view, (_, query) in SECTIONS.items()}


def paper_comparison(curve: pl.DataFrame) -> pl.DataFrame:
    """One row per iteration: our full-credit rate (%), mean turns and mean reward over all domains'
    paired tasks (rows of `hardening_curve`), beside the paper's numbers where it has them."""
    ours = {row["iteration"]: row for row in curve.filter(pl.col("domain") == ALL_DOMAINS).iter_rows(named=True)}
    rows = []
    for k in sorted(set(ours) | set(range(len(PAPER_FULL_CREDIT_PCT)))):
        row = ours.get(k, {})
        rate = row.get("full_credit_rate")
        rows.append({
            "iteration": k,
            "full_credit_pct": None if rate is None else round(100.0 * rate, 1),
            "paper_full_credit_pct": PAPER_FULL_CREDIT_PCT[k] if k < len(PAPER_FULL_CREDIT_PCT) else None,
            "mean_turns": row.get("mean_turns"),
            "paper_mean_turns": PAPER_MEAN_TURNS[k] if k < len(PAPER_MEAN_TURNS) else None,
            "mean_reward": row.get("mean_reward"),
            "tasks": row.get("tasks"),
            "rollouts": row.get("rollouts"),
        })  # fmt: skip
    schema = {"iteration": pl.Int64, "full_credit_pct": pl.Float64, "paper_full_credit_pct": pl.Float64,
              "mean_turns": pl.Float64, "paper_mean_turns": pl.Float64, "mean_reward": pl.Float64,
              "tasks": pl.Int64, "rollouts": pl.Int64}  # fmt: skip
    return pl.DataFrame(rows, schema=schema)


def report_markdown(views: Mapping[str, pl.DataFrame], *, lake_location: str, generated_at: datetime,
                    images: Mapping[str, str]) -> str:  # fmt: skip
    """The summary: our hardening against the paper's, then one section per view. `images` maps a view
    to the (relative) path of its plot."""
    paper = " → ".join(f"{v:.1f}" for v in PAPER_FULL_CREDIT_PCT)
    turns = " → ".join(f"{v:.2f}" for v in PAPER_MEAN_TURNS)
    lines = [
        "# skill2env report",
        "",
        f"Lake `{lake_location}`, read {generated_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC.",
        "",
        "## Hardening against the paper",
        "",
        "Full-credit rate and mean turns of the rollouts over the paired tasks of `hardening_curve` (all domains), "
        f"beside the {PAPER_SOURCE}: {paper} % full credit, {turns} mean assistant turns.",
        "",
        _table(paper_comparison(views["hardening_curve"])),
    ]
    for view, (title, _) in SECTIONS.items():
        lines += ["", f"## {title} (`{view}`)", ""]
        if view in images:
            lines += [f"![{title}]({images[view]})", ""]
        if view == "hack_probe_funnel":
            lines += [
                "All domains, per iteration:",
                "",
                _table(hack_probe_totals(views[view])),
                "",
                "Per strategy:",
                "",
            ]
        lines.append(_table(views[view]))
    return "\n".join(lines) + "\n"


def write_report(lake: Snapshot, out: Path) -> Report:
    """Read the report's views and write `report.md` and the PNG plots into `out`."""
    views = read_views(lake)
    out.mkdir(parents=True, exist_ok=True)
    plots = {
        "hardening_curve": hardening_curve_png(views["hardening_curve"]),
        "validation_funnel": validation_funnel_png(views["validation_funnel"]),
        "hack_probe_funnel": hack_probe_funnel_png(views["hack_probe_funnel"]),
        "curation_funnel": curation_funnel_png(views["curation_funnel"]),
    }
    written = []
    for view, png in plots.items():
        path = out / f"{view}.png"
        path.write_bytes(png)
        written.append(path)
    text = report_markdown(views, lake_location=lake.location, generated_at=datetime.now(UTC),
                           images={view: f"{view}.png" for view in plots})  # fmt: skip
    markdown = out / REPORT_FILE
    markdown.write_text(text, encoding="utf-8")
    return Report(markdown, written)


def _table(frame: pl.DataFrame) -> str:
    return markdown_table(frame, max_rows=TABLE_ROWS) if frame.height else "_No rows yet._"
