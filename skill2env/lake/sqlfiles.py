"""Load the package's SQL files (`skill2env/sql/`, package data): DDL, views and DML, one statement each."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

SQL_DIR = Path(str(files("skill2env") / "sql"))
"""The SQL files, found through the package (a wheel installs them unpacked beside the modules)."""


class SqlFileNotFoundError(FileNotFoundError):
    """A statement name that has no file under `sql/`."""


@cache
def load_sql(name: str) -> str:
    """The statement in `sql/<name>.sql`, e.g. `load_sql("dml/record_materialization")`."""
    path = SQL_DIR / f"{name}.sql"
    if not path.is_file():
        raise SqlFileNotFoundError(f"no SQL file {path}")
    return path.read_text(encoding="utf-8")


def ordered_statements(folder: str, *, dialect: str | None = None) -> list[tuple[str, str]]:
    """(name, statement) for every file in `sql/<folder>/`, in file-name order.

    With a `dialect`, a file of the same name under `sql/<dialect>/<folder>/` replaces the statement,
    and a replacement that holds only comments drops it (e.g. a sequence the dialect has no use for)."""
    statements = []
    for path in sorted((SQL_DIR / folder).glob("*.sql")):
        override = SQL_DIR / dialect / folder / path.name if dialect else None
        text = (override if override and override.is_file() else path).read_text(encoding="utf-8")
        if _has_code(text):
            statements.append((path.stem, text))
    return statements


def _has_code(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--") for line in text.splitlines())
