"""A reference solution in steps: its markers split it (never inside a heredoc), the partial run keeps
the first half of the steps, a solution without steps cannot be cut, and bad steps are findings."""

from __future__ import annotations

import pytest
from model_author_script import ONE_PROGRAM_SOLVE_SH, SOLVE_SH

from skill2env.agent.scripted import solution_steps, steps_to_run
from skill2env.tasks.author_answers import step_findings

STEPPED = """#!/usr/bin/env bash
set -euo pipefail
# --- step: parse ---
python3 - <<'PY'
# --- step: not-a-step ---
print("parsed")
PY
# --- step: compute ---
cat <<-EOF > out.txt
\t# --- step: not-one-either ---
\tEOF
#   ---   step:   write report   ---
echo done
"""


def test_markers_split_the_solution_and_heredoc_bodies_stay_whole() -> None:
    steps = solution_steps(STEPPED)
    assert steps.preamble == "#!/usr/bin/env bash\nset -euo pipefail\n"
    assert steps.names() == ["parse", "compute", "write report"]
    assert "# --- step: not-a-step ---" in steps.steps[0].text and steps.steps[0].text.endswith("PY\n")
    assert steps.script(1) == steps.preamble + steps.steps[0].text
    assert steps.script(3) == STEPPED  # every step: the whole file, byte for byte


def test_a_solution_without_markers_has_no_steps() -> None:
    steps = solution_steps(ONE_PROGRAM_SOLVE_SH)
    assert steps.steps == () and steps.preamble == ONE_PROGRAM_SOLVE_SH


def test_the_model_authored_fixture_is_written_in_three_steps() -> None:
    names = solution_steps(SOLVE_SH).names()
    assert names == ["first-error-and-hourly-buckets", "error-count-and-suspect-deploy", "incident-note"]


@pytest.mark.parametrize(
    ("count", "fraction", "keep"),
    [(3, 0.5, 1), (4, 0.5, 2), (2, 0.5, 1), (1, 0.5, None), (0, 0.5, None), (0, 1.0, 0), (3, 1.0, 3)],
)
def test_the_partial_run_keeps_the_first_half_of_the_steps(count: int, fraction: float, keep: int | None) -> None:
    assert steps_to_run(count, fraction) == keep


def test_repeated_and_empty_steps_are_findings_and_no_steps_is_not() -> None:
    bad = "#!/usr/bin/env bash\n# --- step: a ---\necho 1\n# --- step: a ---\necho 2\n# --- step: b ---\n# nothing\n"
    assert [(f.check, f.code) for f in step_findings(bad)] == [
        ("solution", "duplicate_step"),
        ("solution", "empty_step"),
    ]
    assert step_findings(ONE_PROGRAM_SOLVE_SH) == [] and step_findings(SOLVE_SH) == []
