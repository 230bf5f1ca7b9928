"""Truncating the oracle for the partial policy."""

from __future__ import annotations

import pytest

from skill2env.agent.scripted import POLICIES, PartialPolicy, truncated_script

SCRIPT = "#!/usr/bin/env bash\n# set up\nset -e\n\nmkdir out\necho a > out/a\n# last step\necho b > out/b\n"


@pytest.mark.parametrize(
    ("fraction", "kept"),
    [
        (0.0, "#!/usr/bin/env bash\n"),
        (0.25, "#!/usr/bin/env bash\n# set up\nset -e\n"),
        (0.5, "#!/usr/bin/env bash\n# set up\nset -e\n\nmkdir out\n"),
        (0.75, "#!/usr/bin/env bash\n# set up\nset -e\n\nmkdir out\necho a > out/a\n"),
        (1.0, SCRIPT),
    ],
)
def test_the_truncated_oracle_keeps_a_fraction_of_its_commands(fraction: float, kept: str) -> None:
    assert truncated_script(SCRIPT, fraction) == kept


def test_a_fraction_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="fraction"):
        PartialPolicy(1.5)


def test_policies_are_registered_by_name() -> None:
    assert {name: cls.name for name, cls in POLICIES.items()} == {
        "nop": "nop",
        "oracle": "oracle",
        "partial": "partial",
    }
