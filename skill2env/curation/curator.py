"""The curator interface: who settles the criteria that static rules leave undecided.

Rules decide most skills; a few are genuinely ambiguous (a long guide with no explicit steps,
a download from a host nobody has vetted). `curate_skill` hands exactly those verdicts, the ones
whose outcome is `undecided`, to a `Curator`, which returns replacements.

`RulesOnlyCurator` is the default and changes nothing: undecided stays undecided, which means
not curated. A model-backed curator plugs in by implementing the same protocol:

* `name` identifies it in the output (`decided_by == f"curator:{name}"`), e.g. the model id;
* `settle(record, undecided)` builds a prompt from the record (name, description, SKILL.md
  text, the rule's reasons and evidence), asks the model for pass / fail with a reason code in
  the same `family:detail` vocabulary, and returns one new `Verdict` per input verdict, for the
  same criterion. It must never raise: on a model or network error it returns the input
  verdicts unchanged, so the run goes on and the skill stays undecided.

No model or network is called from this module; the client comes with the model curator.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from skill2env.catalog.models import SkillRecord
from skill2env.curation.models import Verdict


@runtime_checkable
class Curator(Protocol):
    """Settles undecided verdicts; see the module docstring for the contract."""

    name: str

    def settle(self, record: SkillRecord, undecided: list[Verdict]) -> list[Verdict]:
        """Replacements for `undecided` (same criteria, same order), `decided_by="curator:<name>"`."""
        ...


class RulesOnlyCurator:
    """The curator that settles nothing: undecided verdicts stay undecided."""

    name = "rules-only"

    def settle(self, record: SkillRecord, undecided: list[Verdict]) -> list[Verdict]:
        """Return the verdicts unchanged (copies, so callers may modify them freely)."""
        return [verdict.model_copy(deep=True) for verdict in undecided]
