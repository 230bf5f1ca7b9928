"""What a check computed, kept for the next candidate workspaces of one batch verification.

The verifier's batch mode (the host's own hack-probe candidates, many workspaces in one process, see
`verify_main`) sets `MEMO_ENV` to a folder private to it; single-workspace verification never does,
so there every call computes. A check hands `remembered` everything its computation reads, as bytes
(the inputs' contents, not their names alone), and gets the result an earlier candidate's equal inputs
gave, or computes and keeps it. Only results that are JSON and carry no `error` are kept: an error
may come from the moment (a time limit), not from the inputs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

MEMO_ENV = "SKILL2ENV_CHECK_MEMO"


def remembered(kind: str, inputs: Sequence[bytes], compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`compute()`, or what it returned before on the same `inputs` within this batch."""
    folder = os.environ.get(MEMO_ENV)
    if not folder:
        return compute()
    key = hashlib.sha256(b"".join(len(part).to_bytes(8, "big") + part for part in [kind.encode(), *inputs]))
    path = Path(folder, f"{kind}-{key.hexdigest()}.json")
    with contextlib.suppress(OSError, ValueError):
        found = json.loads(path.read_bytes())
        if isinstance(found, dict) and "error" not in found:
            return found
    result = compute()
    if "error" not in result:
        with contextlib.suppress(OSError, TypeError, ValueError):
            temporary = path.with_suffix(".tmp")
            temporary.write_text(json.dumps(result, allow_nan=False), encoding="utf-8")
            temporary.replace(path)
    return result
