"""The layering the README's layout section describes, checked on the source: only the composition
roots hold a `Lake`; the library never imports the Dagster, asset or resource layers."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "skill2env"
COMPOSITION_ROOTS = {"definitions.py", "cli.py", "exports/cli.py", "tasks/cli.py"}
"""The Dagster definitions and the command line: they open the lake and hand stages its rows."""
LAKE_PACKAGE = "lake/"
LAKE_OPENERS = {"Lake", "lake_of"}
"""What holds a lake: the class, and the function that opens a home's lake under the active profile."""


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _imports(path: Path) -> Iterator[tuple[str, str]]:
    """(module, name) for every `from module import name` and (module, '') for every `import module`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield from ((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from ((alias.name, "") for alias in node.names)


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def test_only_the_lake_package_and_the_composition_roots_import_lake() -> None:
    holders = sorted(
        _relative(path)
        for path in _modules()
        if any(module.startswith("skill2env.lake") and name in LAKE_OPENERS for module, name in _imports(path))
    )
    outside = [m for m in holders if not m.startswith(LAKE_PACKAGE) and m not in COMPOSITION_ROOTS]
    assert outside == [], f"library modules that import Lake (take rows or a lake port instead): {outside}"
    assert "definitions.py" in holders  # the check sees imports at all


@pytest.mark.parametrize("layer", ["dagster", "assets", "resources"])
def test_the_library_never_imports_the_orchestration_layers(layer: str) -> None:
    importers = sorted(
        _relative(path)
        for path in _modules()
        if _relative(path) != "definitions.py"
        and any(module == layer or module.startswith(layer + ".") for module, _ in _imports(path))
    )
    assert importers == []


FACED_PACKAGES = ("agent", "kits", "llm", "rubric", "sandbox")
"""Packages with a curated `__all__`: the rest of the code imports what they offer from the package."""
OUTSIDE_CODE = ("skill2env", "assets", "resources", "benchmarks")


def _face(package: str) -> set[str]:
    tree = ast.parse((PACKAGE / package / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            assert isinstance(node.value, ast.List | ast.Tuple)
            return {str(ast.literal_eval(element)) for element in node.value.elts}
    raise AssertionError(f"skill2env/{package}/__init__.py has no __all__")


@pytest.mark.parametrize("package", FACED_PACKAGES)
def test_code_outside_a_package_imports_what_its_face_offers_from_the_face(package: str) -> None:
    face, prefix = _face(package), f"skill2env.{package}."
    root = PACKAGE.parent
    bypassing = []
    for top in OUTSIDE_CODE:
        for path in sorted((root / top).rglob("*.py")):
            module = path.relative_to(root).with_suffix("").as_posix().replace("/", ".")
            if module.startswith(prefix) or module == prefix.rstrip("."):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:  # imports inside functions may break a cycle on purpose
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix):
                    bypassing += [f"{module}: {node.module}.{a.name}" for a in node.names if a.name in face]
    assert face and bypassing == []
