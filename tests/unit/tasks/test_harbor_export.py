"""The Harbor-native rewrite of a stored task: self-contained tests/, a separate verifier, a non-root
agent, an immutable base image, unique names, judge variables that never block, and a fixed point."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest
from harbor_tasks import tree
from task_samples import billing_draft

from skill2env.rubric.bundle import checks_budget, verifier_bundle
from skill2env.rubric.models import Method
from skill2env.sandbox.base_image import BaseImageRecipe
from skill2env.tasks.export import _replace_dir, export_tasks, files_digest
from skill2env.tasks.harbor import JUDGE_ENV, task_digest, write_task_dir
from skill2env.tasks.harbor_export import (
    ExportIdentity,
    HarborExportError,
    harbor_task_files,
    read_files,
)
from skill2env.tasks.store import TaskStore

REGISTRY_REF = "registry.example.com/skill2env-base@sha256:" + "ab" * 32


def _stored(tmp_path: Path, *, judged: bool = False) -> Path:
    """The billing sample (it has judge items), or without its judge items when not `judged`."""
    draft = billing_draft()
    if not judged:
        kept = [i for i in draft.blueprint.rubric.items if i.method == Method.deterministic]
        total = sum(i.weight for i in kept)
        items = [i.model_copy(update={"weight": i.weight / total}) for i in kept]
        rubric = draft.blueprint.rubric.model_copy(update={"items": items})
        draft = dataclasses.replace(draft, blueprint=draft.blueprint.model_copy(update={"rubric": rubric}))
    assert any(i.method == Method.llm_judge for i in draft.blueprint.rubric.items) == judged
    root = tmp_path / "stored"
    write_task_dir(draft, root, skill_dir=None)
    return root


def _identity(root: Path) -> ExportIdentity:
    return ExportIdentity("vendor-billing-reconciliation-i0", task_digest(root), ("t-i0", "t-i1"), (1, 0))


def _config(files: dict[str, bytes]) -> dict:
    return tomllib.loads(files["task.toml"].decode())


def test_the_export_carries_its_whole_verifier_and_runs_it_in_a_separate_environment(tmp_path: Path) -> None:
    root = _stored(tmp_path)
    files = harbor_task_files(read_files(root), _identity(root))

    for name, data in verifier_bundle().items():
        assert files[f"tests/{name}"] == data
    assert files["tests/rubric.json"] == (root / "tests" / "rubric.json").read_bytes()
    test_sh = files["tests/test.sh"].decode()
    assert "rm -f /logs/verifier/reward.json /logs/verifier/reward.txt" in test_sh
    timeout = _config(files)["verifier"]["timeout_sec"]
    budget = f"{checks_budget(timeout):g}"
    assert float(budget) < timeout  # the checks leave the verifier time to write its reward before Harbor's timeout
    command = (
        "exec python3 -I /tests/verify.py --rubric /tests/rubric.json --workspace /workspace --out /logs/verifier"
        f" --time-budget {budget}"
    )
    assert test_sh.splitlines()[-1] == command  # no --no-judge: the exported verifier scores judge items
    assert not any(word in test_sh for word in ("pip ", "apt-get", "curl", "wget", "uv "))
    config = _config(files)
    assert config["verifier"]["environment_mode"] == "separate"
    assert config["agent"]["user"] == "agent"
    assert config["artifacts"] == ["/workspace"]
    tag = BaseImageRecipe().tag
    assert files["tests/Dockerfile"].decode().splitlines()[:2] == [f"FROM {tag}", "COPY . /tests/"]
    agent_image = files["environment/Dockerfile"].decode()
    assert agent_image.startswith(f"FROM {tag}\n")
    assert "COPY --chown=agent:agent workspace/ /workspace/\n" in agent_image and agent_image.endswith("\n")
    # Nothing of the tests or the solution reaches the agent's image.
    assert "tests" not in agent_image and "solution" not in agent_image


def test_names_and_versions_are_unique_per_task_version_and_list_the_lake_ids(tmp_path: Path) -> None:
    root = _stored(tmp_path)
    identity = _identity(root)
    config = _config(harbor_task_files(read_files(root), identity))

    version = identity.task_digest[:12]
    assert config["task"]["name"] == f"skill2env/vendor-billing-reconciliation-i0-{version}"
    assert config["task"]["version"] == version
    record = config["metadata"]["skill2env"]["export"]
    assert record["task_ids"] == ["t-i0", "t-i1"] and record["iterations"] == [0, 1]
    assert record["task_digest"] == identity.task_digest


def test_exporting_an_export_gives_the_same_bytes(tmp_path: Path) -> None:
    root = _stored(tmp_path, judged=True)
    first = harbor_task_files(read_files(root), _identity(root), base_image=REGISTRY_REF)
    out = tmp_path / "out"
    _replace_dir(out, first, modes={})
    # An imported export has another digest and lake id: name and version are read back, not recomputed.
    second = harbor_task_files(read_files(out), ExportIdentity("other-name", "f" * 64), base_image=REGISTRY_REF)

    assert second == first
    assert files_digest(second) == task_digest(out)


def test_judge_variables_have_empty_defaults_so_harbor_preflight_never_blocks(tmp_path: Path) -> None:
    plain = _stored(tmp_path / "plain")
    judged = _stored(tmp_path / "judged", judged=True)

    assert "env" not in _config(harbor_task_files(read_files(plain), _identity(plain)))["verifier"]
    env = _config(harbor_task_files(read_files(judged), _identity(judged)))["verifier"]["env"]
    assert env == {name: f"${{{name}:-}}" for name in JUDGE_ENV}


def test_a_registry_reference_replaces_the_local_tag_in_both_images(tmp_path: Path) -> None:
    root = _stored(tmp_path)
    files = harbor_task_files(read_files(root), _identity(root), base_image=REGISTRY_REF)

    assert files["environment/Dockerfile"].decode().startswith(f"FROM {REGISTRY_REF}\n")
    assert files["tests/Dockerfile"].decode().startswith(f"FROM {REGISTRY_REF}\n")


def test_tasks_that_are_not_skill2env_tasks_are_exported_byte_for_byte(tmp_path: Path) -> None:
    files = {"task.toml": b'[task]\nname = "acme/x"\n', "instruction.md": b"hi\n", "tests/test.sh": b"exit 0\n"}
    assert harbor_task_files(files, ExportIdentity("x", "0" * 64)) == files


def test_a_task_toml_that_does_not_parse_is_an_error(tmp_path: Path) -> None:
    root = _stored(tmp_path)
    files = read_files(root)
    files["task.toml"] = b"[task\n"
    with pytest.raises(HarborExportError, match=r"task\.toml does not parse"):
        harbor_task_files(files, _identity(root))


def test_export_writes_whole_directories_and_keeps_scripts_executable(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "home")
    stored = store.put_draft(billing_draft(), skill_dir=None)
    row = {"task_id": "t-i0", "task_name": "t", "iteration": 0, "task_digest": stored.digest,
           "store_path": stored.relative_path}  # fmt: skip

    [first] = export_tasks([row], store, tmp_path / "out")
    [again] = export_tasks([row], store, tmp_path / "out")

    assert first.written and not again.written
    assert (first.path / "tests" / "test.sh").stat().st_mode & 0o111
    assert (first.path / "solution" / "solve.sh").stat().st_mode & 0o111
    assert not (first.path / "tests" / "verify.py").stat().st_mode & 0o111
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".export-")]
    assert tree(first.path)["tests/verify.py"] == verifier_bundle()["verify.py"]
