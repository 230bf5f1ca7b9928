"""The checks' memo (`remembered`: results kept across the candidates of one batch verification, per
input) and the batch's warm-up of what inline `python` checks import."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from skill2env.rubric.checks import MEMO_ENV, remembered, warm_up


def test_remembered_computes_every_time_outside_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MEMO_ENV, raising=False)
    calls: list[int] = []

    def compute() -> dict[str, Any]:
        calls.append(1)
        return {"value": 1}

    for _ in range(2):
        assert remembered("k", [b"same"], compute) == {"value": 1}
    assert len(calls) == 2


def test_remembered_keeps_finished_json_results_per_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMO_ENV, str(tmp_path))
    calls: list[bytes] = []

    def compute(data: bytes, result: dict[str, Any]) -> Any:
        def run() -> dict[str, Any]:
            calls.append(data)
            return result

        return run

    assert remembered("k", [b"a"], compute(b"a", {"rows": [[1, 2.5, "x"]]})) == {"rows": [[1, 2.5, "x"]]}
    assert remembered("k", [b"a"], compute(b"a", {"rows": "never computed"})) == {"rows": [[1, 2.5, "x"]]}
    assert remembered("k", [b"b"], compute(b"b", {"rows": []})) == {"rows": []}
    # The inputs are length-framed: ["ab", "c"] is not ["a", "bc"].
    assert remembered("k", [b"a", b"bc"], compute(b"a|bc", {"n": 1})) == {"n": 1}
    assert remembered("k", [b"ab", b"c"], compute(b"ab|c", {"n": 2})) == {"n": 2}
    # An error may come from the moment, and a result JSON cannot hold is not kept: both computed again.
    for result in ({"error": "timed out"}, {"value": float("nan")}, {"value": b"bytes"}):
        for _ in range(2):
            remembered("k", [repr(result).encode()], compute(b"again", result))
    assert calls == [b"a", b"b", b"a|bc", b"ab|c"] + [b"again"] * 6


def test_warm_up_compiles_inline_sources_and_imports_what_they_import(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("colorsys", "xml.dom.minidom", "wave"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    source = "\n".join([
        "import wave", "", "def check(workspace, args):", "    import colorsys",
        "    from xml.dom import minidom, Node", "    from no_such_module_here import thing", "    return True", "",
    ])  # fmt: skip
    items: list[dict[str, Any]] = [
        {"id": "a", "check": {"check": "python", "params": {"source": source}}},
        {"id": "b", "check": {"check": "python", "params": {"source": "def check(:\n"}}},
        {"id": "c", "check": {"check": "file_exists", "params": {"path": "import_me.py"}}},
        {"id": "d", "method": "llm_judge"},
    ]
    imported = warm_up(items)
    assert {"wave", "colorsys", "xml.dom", "xml.dom.minidom"} <= set(imported)
    assert {"wave", "colorsys", "xml.dom.minidom"} <= set(sys.modules)
    assert not [name for name in imported if "no_such" in name or name.endswith(".Node")]
