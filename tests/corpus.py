"""Where the development corpus of real skills lies: `$SKILL2ENV_DEV_CORPUS`, else `shared/` beside the project."""

from __future__ import annotations

import os
from pathlib import Path

CORPUS = Path(
    os.environ.get("SKILL2ENV_DEV_CORPUS") or Path(__file__).resolve().parents[2] / "shared" / "corpus" / "skills-dev"
)
OPENCLAW = CORPUS / "openclaw-skills"
