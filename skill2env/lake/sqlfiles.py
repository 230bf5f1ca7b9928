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


def ordered_statements(folder: str) -> list[tuple[str, str]]:
    """(name, statement) for every file in `sql/<folder>/`, in file-name order."""
    return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted((SQL_DIR / folder).glob("*.sql"))]
