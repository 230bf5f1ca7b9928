"""The plots: PNG bytes from view rows (empty views included), and the Markdown image for asset metadata."""

from __future__ import annotations

import base64
import io

import polars as pl
from PIL import Image

from skill2env.exports.plots import hardening_curve_markdown, hardening_curve_png, validation_funnel_png
from skill2env.exports.report import paper_comparison

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CURVE_SCHEMA = {"domain": pl.String, "iteration": pl.Int64, "tasks": pl.Int64, "rollouts": pl.Int64,
                "full_credit_rate": pl.Float64, "mean_reward": pl.Float64, "mean_turns": pl.Float64}  # fmt: skip


def curve(domains: int) -> pl.DataFrame:
    rows = [{"domain": domain, "iteration": k, "tasks": 10, "rollouts": 40, "full_credit_rate": 0.5 - 0.15 * k,
             "mean_reward": 0.8 - 0.1 * k, "mean_turns": None if domain == "d-0" else 20.0 + 6 * k}
            for domain in ["*", *(f"d-{i}" for i in range(domains))] for k in range(3)]  # fmt: skip
    return pl.DataFrame(rows, schema=CURVE_SCHEMA)


def test_the_hardening_curve_draws_every_domain_and_missing_values() -> None:
    image = Image.open(io.BytesIO(hardening_curve_png(curve(25))))
    assert image.format == "PNG" and image.size == (1300, 420)


def test_empty_views_still_draw() -> None:
    assert hardening_curve_png(curve(0).clear()).startswith(PNG_MAGIC)
    assert validation_funnel_png(pl.DataFrame(schema={"domain": pl.String, "iteration": pl.Int64})).startswith(
        PNG_MAGIC
    )


def test_the_markdown_image_holds_the_png_itself() -> None:
    markdown = hardening_curve_markdown(curve(3))
    prefix = "![Hardening curve](data:image/png;base64,"
    assert markdown.startswith(prefix) and markdown.endswith(")")
    assert base64.b64decode(markdown[len(prefix) : -1]).startswith(PNG_MAGIC)


def test_paper_comparison_puts_ours_beside_the_paper_in_percent() -> None:
    table = paper_comparison(curve(2)).select("iteration", "full_credit_pct", "paper_full_credit_pct",
                                                "mean_turns", "paper_mean_turns")  # fmt: skip
    assert table.rows() == [(0, 50.0, 48.4, 20.0, 25.91), (1, 35.0, 24.8, 26.0, 36.54), (2, 20.0, 15.4, 32.0, 38.85)]
