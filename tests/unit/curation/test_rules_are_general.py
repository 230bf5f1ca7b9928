"""The curation rules stay general: no skill of the development corpora is named in them."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from corpus import CORPUS

import skill2env.curation as curation_package

# The modules that decide verdicts and the signal data they read (domain classification only
# picks a partition and is not a verdict rule).
_CURATION = Path(curation_package.__file__).parent
_CATALOG = _CURATION.parent / "catalog"
RULE_FILES = [
    *(_CURATION / name for name in ("practical.py", "compatibility.py", "feasibility.py", "security.py", "curate.py")),
    _CATALOG / "signals.py",
    _CATALOG / "requirements.py",
]
CORPORA = (CORPUS, CORPUS.parent / "skills-dev-full")


def _corpus_names() -> set[str]:
    """Every skill folder name of the corpora's manifests, and its slug (the part after `owner--`)."""
    names: set[str] = set()
    for corpus in CORPORA:
        manifest = corpus / "MANIFEST.tsv"
        if not manifest.is_file():
            continue
        with manifest.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                folder = row["skill_path"].rstrip("/").rsplit("/", 1)[-1]
                names.add(folder)
                names.add(folder.split("--", 1)[-1])
    return names


def test_no_corpus_skill_is_named_in_the_rules() -> None:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip(f"development corpus not found at {CORPUS}")
    names = _corpus_names()
    assert len(names) > 300
    assert all(path.is_file() for path in RULE_FILES)
    # hyphenated names (`paper-lookup`) are specific; a one-word name (`github`, `slack`) is a service
    # the rules may well name, so only names with a hyphen or a `--` owner prefix are looked for
    specific = sorted(name for name in names if "-" in name and len(name) >= 6)
    found = []
    for path in RULE_FILES:
        text = path.read_text(encoding="utf-8", errors="replace").lower()
        for name in specific:
            if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", text):
                found.append(f"{path.name}: {name}")
    assert found == []
