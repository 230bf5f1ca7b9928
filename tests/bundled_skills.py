"""What the bundled example skills are for the offline run: the ones no world kit builds a task of."""

from __future__ import annotations

NO_KIT = frozenset({"archive-triage", "json-api-fixtures", "markdown-docs-linkcheck"})
"""Bundled skills whose work no kit's world is made of (archives, fixture contracts, docs sites):
offline they are skipped, and say why."""
