"""Kit scripts as the sandbox runs them: a bash wrapper around one self-contained Python program.

A kit's reference solver and naive policy are ordinary modules of this package (linted and typed
like the rest); the script is `runtime.py` followed by the module, with the module's
`# kit-runtime` import line and its `from __future__` line dropped.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

RUNTIME = Path(__file__).resolve().parent / "runtime.py"
MARKER = "# kit-runtime"
HEREDOC = "KIT_PY"


@cache
def python_program(module: str) -> str:
    """The runtime helpers followed by `module`'s source, as one program."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(module)
    body = [
        line
        for line in Path(spec.origin).read_text(encoding="utf-8").splitlines()
        if MARKER not in line and line.strip() != "from __future__ import annotations"
    ]
    program = RUNTIME.read_text(encoding="utf-8") + "\n\n# ---- " + module + "\n" + "\n".join(body) + "\n"
    if any(line.strip() == HEREDOC for line in program.splitlines()):
        raise ValueError(f"{module}: a line equal to the heredoc marker {HEREDOC}")
    return program


def shell_script(module: str, description: str, *, mode: str = "full") -> str:
    """`solve.sh`-style script: runs `module` against $WORKSPACE (default /workspace)."""
    return (
        "#!/usr/bin/env bash\n"
        f"# {description}\n"
        "# It reads only the workspace files (OCR included) and derives every deliverable from them.\n"
        "set -euo pipefail\n"
        'export WORKSPACE="${WORKSPACE:-/workspace}"\n'
        f'export KIT_SOLVER_MODE="{mode}"\n'
        'cd "$WORKSPACE"\n'
        f"python3 - <<'{HEREDOC}'\n"
        f"{python_program(module)}"
        f"{HEREDOC}\n"
    )
