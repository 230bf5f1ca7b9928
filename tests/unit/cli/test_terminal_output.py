"""What the CLI prints for people: tables that never break a word, plain rows when piped, and the
hardening iterations recorded in the home for the UI."""

from __future__ import annotations

import io
import re
from pathlib import Path

import polars as pl
import pytest
from rich.console import Console

from skill2env.formatting import fit_widths, print_frame
from skill2env.home import Home, PipelineConfigError, configured_iterations, save_iterations

CURVE = pl.DataFrame(
    {
        "domain": ["*", "data-processing-and-transformation"],
        "iteration": [0, 1],
        "paired_tasks": [24, 24],
        "mean_reward": [0.8125, 0.4375],
        "full_credit_rate": [0.5, 0.125],
        "mean_reward_delta_vs_previous_iteration": [None, -0.375],
        "full_credit_rate_delta_vs_previous_iteration": [None, -0.375],
        "tasks_hardened_from_previous_iteration": [0, 12],
    }
)


def render(frame: pl.DataFrame, *, terminal: bool, width: int = 132) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=terminal, color_system=None)
    print_frame(console, "Hardening curve", frame)
    return out.getvalue()


def test_a_table_at_a_132_column_terminal_wraps_at_word_boundaries_only() -> None:
    text = render(CURVE, terminal=True)

    assert max(len(line) for line in text.splitlines()) <= 132
    cells = [cell.strip() for line in text.splitlines() for cell in re.split(r"[│┃|]", line)]
    words = {word for cell in cells for word in cell.split()}
    # Every header and value is on the table as a whole word: none was cut mid-word.
    header_words = {word for column in CURVE.columns for word in column.split("_")}
    for word in [*header_words, "data-processing-and-transformation", "0.8125", "-0.375", "24"]:
        assert word in words, (word, text)
    assert not any(word in words for word in ("iteratio", "n", "previou", "s")), text


def test_piped_output_is_csv_like_rows_under_the_title() -> None:
    text = render(CURVE, terminal=False)

    assert text.splitlines() == [
        "Hardening curve:",
        ",".join(CURVE.columns),
        "*,0,24,0.8125,0.5,,,0",
        "data-processing-and-transformation,1,24,0.4375,0.125,-0.375,-0.375,12",
    ]


def test_a_table_too_narrow_for_its_longest_words_falls_back_to_rows() -> None:
    assert fit_widths([["data-processing-and-transformation"]], 20) is None
    text = render(CURVE, terminal=True, width=40)
    assert "iteration,paired_tasks" in text
    assert "┃" not in text and "│" not in text


def test_fit_widths_narrows_the_widest_column_down_to_its_longest_word() -> None:
    widths = fit_widths([["name", "a very long sentence of words"], ["n", "1"]], 24)
    assert widths == [18, 3]  # 24 less the three rules; "sentence" and padding of two fit in 18


def test_iterations_come_from_the_variable_then_the_home_then_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILL2ENV_ITERATIONS", raising=False)
    home = Home(tmp_path / "home")
    assert configured_iterations(home) == 2

    save_iterations(home, 3)
    assert configured_iterations(home) == 3
    assert "iterations = 3" in home.pipeline_config.read_text()

    monkeypatch.setenv("SKILL2ENV_ITERATIONS", "1")
    assert configured_iterations(home) == 1
    monkeypatch.setenv("SKILL2ENV_ITERATIONS", "three")
    with pytest.raises(PipelineConfigError, match="whole number"):
        configured_iterations(home)


def test_the_definitions_unroll_the_iterations_the_home_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skill2env.definitions import build_definitions

    monkeypatch.delenv("SKILL2ENV_ITERATIONS", raising=False)
    home = Home(tmp_path / "home")
    save_iterations(home, 3)

    graph = build_definitions(home=str(home.root)).resolve_asset_graph()
    keys = {key.to_user_string() for key in graph.get_all_asset_keys()}
    assert {"iteration_3/rubric_scores", "iteration_2/hardening"} <= keys
    assert "iteration_3/hardening" not in keys
    job = build_definitions(home=str(home.root)).resolve_job_def("environments_job")
    assert "iteration_3__validations" in {node.name for node in job.nodes_in_topological_order}
