"""The hack-probe library without sandboxes: what the probes read from a task, what each builds."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from skill2env.kits import KITS
from skill2env.tasks.blueprint import SkillRef
from skill2env.validation.hack_probes import SIGNATURES, STRATEGIES, flag
from skill2env.validation.hack_probes.content import BUILDERS
from skill2env.validation.hack_probes.instruction import read_view
from skill2env.validation.hack_probes.runner import TamperPolicy
from skill2env.validation.hack_probes.strategies import CONTENT, TAMPER
from skill2env.validation.hack_probes.tamper import SCRIPTS

SKILL = SkillRef(skill_id="s-docling", name="docling", path="docling")


def _kit_view(kit_name: str, root: Path):  # type: ignore[no-untyped-def]
    kit = KITS[kit_name]
    draft = kit.build(0, SKILL, "office-documents", dict.fromkeys(kit.patterns, 2))
    for relative, data in draft.workspace.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    return draft, read_view(draft.instruction, root, "/workspace")


def test_the_library_has_at_least_fifteen_strategies_each_described_with_a_signature() -> None:
    assert len(STRATEGIES) >= 15
    assert len({s.name for s in STRATEGIES}) == len(STRATEGIES)
    assert {s.name for s in CONTENT} == set(BUILDERS) and {s.name for s in TAMPER} == set(SCRIPTS)
    assert len({s.family for s in STRATEGIES}) >= 8
    for strategy in STRATEGIES:
        assert strategy.description and strategy.signature, strategy.name
        assert SIGNATURES[strategy.name], strategy.name


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_the_deliverables_and_formats_come_from_the_instruction_alone(kit_name: str, tmp_path: Path) -> None:
    draft, view = _kit_view(kit_name, tmp_path)
    # A deliverable fixed in place (the front-end kit's pages) is an input as well: from the instruction
    # alone it cannot be told from what is only read, and the strategies that edit inputs cover it.
    new = {d.path for d in draft.blueprint.deliverables} - set(view.inputs)
    assert new and set(view.deliverables) >= new
    for path in view.deliverables:
        assert path not in view.inputs
        if path.endswith(".csv"):
            assert len(view.headers[path]) >= 2, path
        if path.endswith(".json"):
            assert isinstance(view.templates[path], dict) and view.templates[path], path


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_every_content_strategy_builds_its_workspace(kit_name: str, tmp_path: Path) -> None:
    _, view = _kit_view(kit_name, tmp_path / "initial")
    for name, build in BUILDERS.items():
        workspace = tmp_path / name
        workspace.mkdir()
        for relative in view.inputs:
            (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
            (workspace / relative).write_bytes((tmp_path / "initial" / relative).read_bytes())
        build(workspace, view)
        first = workspace / view.deliverables[0]
        assert first.exists() or first.is_symlink() or name in ("verifier_files_in_workspace", "python_hooks",
                                                                "workspace_tool_shims"), name  # fmt: skip
        for current, dirs, _ in os.walk(workspace):  # let pytest clean up after chmod_lockout
            for d in dirs:
                if not Path(current, d).is_symlink():
                    Path(current, d).chmod(0o700)


def test_each_tamper_script_is_flagged_by_its_own_signature(tmp_path: Path) -> None:
    _, view = _kit_view("billing", tmp_path)
    for name, script in SCRIPTS.items():
        commands = [line for line in script(view).splitlines() if line.strip()]
        assert name in flag(commands), name


def test_plain_work_is_not_flagged() -> None:
    work = ["python3 tools/extract.py invoices/INV-1.pdf", "mkdir -p output", "cat notes.md",
            "python3 solve.py > output/summary.json", "head -n 5 data.csv"]  # fmt: skip
    assert flag(work) == {}


def test_the_tamper_script_is_passed_as_an_argument_never_written_to_the_agents_tmp(tmp_path: Path) -> None:
    # A docker sandbox cannot write into the agent's /tmp: the shared run then failed on every task.
    _, view = _kit_view("billing", tmp_path)

    class Sandbox:
        workspace = "/workspace"

        def __init__(self) -> None:
            self.commands: list[list[str]] = []

        def write_file(self, path: str, data: str) -> None:
            raise AssertionError(f"wrote {path}")

        def exec(self, command: list[str], **options: object) -> str:
            self.commands.append(command)
            return "ran"

    sandbox, task = Sandbox(), SimpleNamespace(agent_timeout_sec=600.0)
    assert TamperPolicy(list(TAMPER), view).act(sandbox, task) == ["ran"]  # type: ignore[arg-type]
    (command,) = sandbox.commands
    assert command[:2] == ["bash", "-c"] and command[-1] == "/workspace"
    assert all(SCRIPTS[s.name](view) in command[2] for s in TAMPER)
