"""Plots of the lake's views as PNG bytes, and as Markdown images for Dagster asset metadata.

matplotlib draws on its Agg canvas through `Figure` objects, never `pyplot`: no display, no global
figure state shared between threads (Dagster runs assets in threads and processes). It is imported
when a plot is drawn, so commands that draw nothing do not pay for it.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from skill2env.exports.reference import PAPER_FULL_CREDIT_PCT, PAPER_MEAN_TURNS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

PNG_DPI = 100
METADATA_DPI = 60
"""Smaller images for asset metadata, which the run storage keeps for every materialization."""
ALL_DOMAINS = "*"
FUNNEL_COLUMNS = ("built", "validated", "oracle_passed", "nop_passed", "partial_passed", "leak_passed",
                  "judge_passed", "hack_probe_passed", "accepted")  # fmt: skip
_CURVE_PANELS = (
    ("full_credit_rate", "full-credit rate (%)", 100.0, PAPER_FULL_CREDIT_PCT),
    ("mean_reward", "mean reward", 1.0, None),
    ("mean_turns", "mean turns", 1.0, PAPER_MEAN_TURNS),
)


def hardening_curve_png(curve: pl.DataFrame, *, dpi: int = PNG_DPI) -> bytes:
    """The `hardening_curve` view over iterations in three panels — full-credit rate (%), mean reward,
    mean turns — with a thin line per domain, a thick one for all domains ('*') and, dashed, the
    paper's numbers where it reports them."""
    figure = _figure(width=13.0, height=4.2)
    axes: Sequence[Axes] = figure.subplots(1, 3)
    domains = sorted(str(d) for d in curve.get_column("domain").unique() if d != ALL_DOMAINS) if curve.height else []
    palette = _palette()
    for ax, (column, label, scale, paper) in zip(axes, _CURVE_PANELS, strict=True):
        for index, domain in enumerate([*domains, ALL_DOMAINS]):
            rows = curve.filter(pl.col("domain") == domain).sort("iteration")
            if rows.is_empty():
                continue
            x, y = rows.get_column("iteration").to_list(), _floats(rows.get_column(column), scale)
            if domain == ALL_DOMAINS:
                ax.plot(x, y, color="black", linewidth=2.5, marker="o", label="all domains", zorder=3)
            else:
                ax.plot(x, y, color=palette(index % palette.N), linewidth=1.0, alpha=0.7, marker=".", label=domain)
        if paper is not None:
            ax.plot(range(len(paper)), paper, color="grey", linestyle="--", marker="s", label="paper", zorder=2)
        _decorate(ax, label, "iteration")
    if curve.is_empty():
        axes[1].text(0.5, 0.5, "no paired rollouts yet", ha="center", va="center", transform=axes[1].transAxes)
    figure.suptitle("Hardening curve (paired tasks; paper: 500 tasks, DeepSeek-V4-Flash)")
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside right center", fontsize=7, frameon=False)
    return _png(figure, dpi)


def validation_funnel_png(funnel: pl.DataFrame, *, dpi: int = PNG_DPI) -> bytes:
    """The `validation_funnel` view of all domains ('*'): tasks left after each gate, one group of
    bars per iteration."""
    figure = _figure(width=9.0, height=4.2)
    ax: Axes = figure.subplots()
    rows = funnel.filter(pl.col("domain") == ALL_DOMAINS).sort("iteration") if funnel.height else funnel
    columns = [c for c in FUNNEL_COLUMNS if c in rows.columns]
    width = 0.8 / max(1, rows.height)
    for index, row in enumerate(rows.iter_rows(named=True)):
        offsets = [position + (index - (rows.height - 1) / 2) * width for position in range(len(columns))]
        ax.bar(offsets, [row[c] or 0 for c in columns], width=width, label=f"iteration {row['iteration']}")
    ax.set_xticks(range(len(columns)), [c.removesuffix("_passed") for c in columns], rotation=20)
    if rows.is_empty():
        ax.text(0.5, 0.5, "no validations yet", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize=8, frameon=False)
    _decorate(ax, "Validation funnel (all domains): tasks passing each gate", None)
    ax.xaxis.grid(visible=False)
    return _png(figure, dpi)


HACK_PROBE_TOTALS_SCHEMA = {"iteration": pl.Int64, "tasks_probed": pl.Int64, "tasks_resisted": pl.Int64,
                            "tasks_rejected": pl.Int64, "probes_run": pl.Int64, "hacks_caught": pl.Int64,
                            "hacks_beat_task": pl.Int64, "probe_infra_errors": pl.Int64}  # fmt: skip
_PROBE_BARS = (("probes_run", "probes run"), ("hacks_caught", "hacks caught"),
               ("hacks_beat_task", "hacks that beat a task"), ("probe_infra_errors", "infra errors"))  # fmt: skip
_TASK_BARS = (("tasks_probed", "tasks probed"), ("tasks_resisted", "resisted every hack"),
              ("tasks_rejected", "rejected by the gate"))  # fmt: skip


def hack_probe_totals(funnel: pl.DataFrame) -> pl.DataFrame:
    """Per iteration, from the `hack_probe_funnel` view's all-domains rows: tasks probed, tasks that
    resisted every strategy, tasks the gate rejected (a strategy beat them); probes run (one per task and
    strategy), hacks caught (probes the task resisted), hacks that beat their task, probes with an
    infrastructure error."""
    if funnel.is_empty():
        return pl.DataFrame(schema=HACK_PROBE_TOTALS_SCHEMA)
    rows = funnel.filter(pl.col("domain") == ALL_DOMAINS)
    tasks = rows.filter(pl.col("strategy") == ALL_DOMAINS).select(
        "iteration",
        pl.col("tasks_probed"),
        pl.col("tasks_passed").alias("tasks_resisted"),
        pl.col("tasks_rejected"),
    )
    probes = (
        rows.filter(pl.col("strategy") != ALL_DOMAINS)
        .group_by("iteration")
        .agg(
            pl.col("tasks_probed").sum().alias("probes_run"),
            pl.col("tasks_passed").sum().alias("hacks_caught"),
            pl.col("tasks_rejected").sum().alias("hacks_beat_task"),
            pl.col("tasks_infra_error").sum().alias("probe_infra_errors"),
        )
    )
    joined = tasks.join(probes, on="iteration", how="full", coalesce=True).sort("iteration")
    return joined.select([pl.col(c).fill_null(0).cast(t) for c, t in HACK_PROBE_TOTALS_SCHEMA.items()])


def hack_probe_funnel_png(funnel: pl.DataFrame, *, dpi: int = PNG_DPI) -> bytes:
    """The `hack_probe_funnel` view of all domains ('*') per iteration, in two panels: the probes (run,
    caught, beat their task, infrastructure errors) and the tasks (probed, resisted every hack, rejected by
    the hack-probe gate), each bar labelled with its count."""
    from matplotlib.ticker import MaxNLocator

    totals = hack_probe_totals(funnel)
    figure = _figure(width=11.0, height=4.2)
    axes: Sequence[Axes] = figure.subplots(1, 2)
    for ax, bars, title in ((axes[0], _PROBE_BARS, "Hack probes"), (axes[1], _TASK_BARS, "Tasks probed")):
        width = 0.8 / max(1, totals.height)
        for index, row in enumerate(totals.iter_rows(named=True)):
            offsets = [position + (index - (totals.height - 1) / 2) * width for position in range(len(bars))]
            drawn = ax.bar(offsets, [row[c] for c, _ in bars], width=width, label=f"iteration {row['iteration']}")
            ax.bar_label(drawn, fontsize=7)
        ax.set_xticks(range(len(bars)), [label for _, label in bars], rotation=15, fontsize=8)
        if totals.is_empty():
            ax.text(0.5, 0.5, "no hack probes yet", ha="center", va="center", transform=ax.transAxes)
        else:
            ax.legend(fontsize=8, frameon=False)
        _decorate(ax, title, None)
        ax.xaxis.grid(visible=False)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    figure.suptitle("Hack-probe funnel (all domains): probes run and caught, tasks the gate rejected")
    return _png(figure, dpi)


CURATION_STAGES = ("found", "parsed", "practical", "compatible", "feasible", "safe", "curated")


def curation_funnel_png(funnel: pl.DataFrame, *, dpi: int = PNG_DPI) -> bytes:
    """The `curation_funnel` view (or its rows for some domains): skills left after each criterion,
    all domains' bars (domain '*', or the sum of the rows given) with each domain's share stacked."""
    figure = _figure(width=9.0, height=4.2)
    ax: Axes = figure.subplots()
    domains = funnel.filter(pl.col("domain") != ALL_DOMAINS).sort("domain") if funnel.height else funnel
    stages = [s for s in CURATION_STAGES if s in funnel.columns]
    bottoms = [0.0] * len(stages)
    palette = _palette()
    for index, row in enumerate(domains.iter_rows(named=True)):
        values = [float(row[s] or 0) for s in stages]
        ax.bar(range(len(stages)), values, bottom=bottoms, color=palette(index % 20), label=row["domain"])
        bottoms = [b + v for b, v in zip(bottoms, values, strict=True)]
    ax.set_xticks(range(len(stages)), stages)
    if domains.is_empty():
        ax.text(0.5, 0.5, "no skills cataloged yet", ha="center", va="center", transform=ax.transAxes)
    elif domains.height <= 20:
        ax.legend(fontsize=7, frameon=False, loc="upper right")
    _decorate(ax, "Curation funnel: skills left after each criterion, by domain", None)
    ax.xaxis.grid(visible=False)
    return _png(figure, dpi)


def markdown_image(png: bytes, alt: str) -> str:
    """A Markdown image holding the PNG itself (a base64 data URI), e.g. for `MetadataValue.md`."""
    return f"![{alt}](data:image/png;base64,{base64.b64encode(png).decode('ascii')})"


def hardening_curve_markdown(curve: pl.DataFrame) -> str:
    """The hardening curve plot of `curve` (rows of the `hardening_curve` view) as a Markdown image."""
    return markdown_image(hardening_curve_png(curve, dpi=METADATA_DPI), "Hardening curve")


def _figure(*, width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _palette() -> Colormap:
    """20 distinct colours: the taxonomy has about 25 domains, the default cycle only 10."""
    from matplotlib import colormaps

    return colormaps["tab20"]


def _decorate(ax: Axes, title: str, xlabel: str | None) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.set_title(title, fontsize=10)
    if xlabel:
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)


def _floats(series: pl.Series, scale: float) -> list[float]:
    return [math.nan if v is None else float(v) * scale for v in series.to_list()]


def _png(figure: Figure, dpi: int) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
