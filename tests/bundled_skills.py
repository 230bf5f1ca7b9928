"""What the bundled example skills are for the offline run: the ones no world kit builds a task of."""

from __future__ import annotations

NO_KIT = frozenset({"archive-triage", "json-api-fixtures", "markdown-docs-linkcheck", "calendar-availability",
                    "junit-triage"})  # fmt: skip
"""Bundled skills whose work no kit's world is made of (archives, fixture contracts, docs sites,
calendars, test reports): offline they are skipped, and say why. The last two are authored by a
model instead (`tests/bundled_package_author_script.py`): their tasks need a package the base
image lacks."""
