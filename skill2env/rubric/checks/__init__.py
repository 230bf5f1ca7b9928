"""The deterministic check library: small checks registered by name, one concern per module, each
`(workspace, params) -> CheckResult(passed, evidence)`.

Standard library only (openpyxl / duckdb used when present): the package is copied into a task's
`tests/` beside `verify.py` and runs inside the task environment. Relative imports only, so it
works both as `skill2env.rubric.checks` and as the bundle's own top-level package.

| check | concern |
| --- | --- |
| `file_exists`, `file_absent` | a deliverable is there (or must not be) |
| `file_unchanged` | read-only sources keep their sha256 |
| `text_contains`, `text_matches` | phrases and regular expressions in text |
| `csv_equals` | a table equals the expected one (order, keys, tolerance, normalisation) |
| `json_equals`, `json_path_equals` | a JSON document, or values at JSONPaths |
| `row_count` | records in a table, JSON array, JSONL or text file |
| `sql_query` | a query on a produced SQLite / DuckDB file |
| `cross_file_consistent` | deliverables agree with each other |
| `python` | a function shipped with the verifier, for what the library does not cover |

`remembered` lets a `python` check reuse an expensive computation across the candidates of one batch
verification (`memo`).
"""

from . import (
    consistency,
    csv_equals,
    digest,
    files,
    json_equals,
    python_check,
    row_count,
    sql_query,
    text,
)
from .base import (
    REGISTRY,
    CheckFailed,
    CheckResult,
    CheckSpecError,
    CheckTimeout,
    RegisteredCheck,
    run_check,
    spec_problems,
)
from .digest import sha256_file
from .judge_inputs import judge_inputs
from .memo import MEMO_ENV, remembered
from .python_check import warm_up
from .reward import weighted_reward
from .tables import clear_cache

__all__ = [
    "MEMO_ENV",
    "REGISTRY",
    "CheckFailed",
    "CheckResult",
    "CheckSpecError",
    "CheckTimeout",
    "RegisteredCheck",
    "clear_cache",
    "consistency",
    "csv_equals",
    "digest",
    "files",
    "json_equals",
    "judge_inputs",
    "python_check",
    "remembered",
    "row_count",
    "run_check",
    "sha256_file",
    "spec_problems",
    "sql_query",
    "text",
    "warm_up",
    "weighted_reward",
]
