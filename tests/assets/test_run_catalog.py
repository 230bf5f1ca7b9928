"""The in-process runner the CLI uses: both jobs, step timings, and progress lines as they come."""

from __future__ import annotations

from pathlib import Path

import pytest
from skill_trees import small_tree

from assets import progress as progress_module
from skill2env.definitions import run_catalog
from skill2env.home import Home


def test_run_catalog_reports_progress_timings_and_the_funnel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "PROGRESS_EVERY_SECONDS", 0.0)
    lines: list[str] = []

    outcome = run_catalog(Home(tmp_path / "home"), small_tree(tmp_path / "skills"), workers=1, progress=lines.append)

    assert outcome.skills == 4
    assert "skill folders profiled: 4" in lines
    assert "skills curated: 4 of 4" in lines
    assert set(outcome.step_seconds) == {"skill_catalog", "pattern_library", "curated_skills", "pattern_selections"}
    total = outcome.funnel.filter(outcome.funnel["domain"] == "*").row(0, named=True)
    assert (total["found"], total["curated"]) == (4, 1)
