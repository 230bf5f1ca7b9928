"""Writing a draft as a Harbor task directory: layout, task.toml, Dockerfile, digest, store."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from harbor_tasks import tree
from task_samples import AUTHOR, billing_draft, make_skill_dir

from skill2env.rubric.models import Rubric
from skill2env.sandbox.packages import DECLARED
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.harbor import TaskPaths, TaskWriteError, task_digest, write_task_dir
from skill2env.tasks.harbor_config import TaskConfig, dumps_toml, unknown_keys
from skill2env.tasks.store import TaskStore


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return make_skill_dir(tmp_path / "skills")


def test_the_task_directory_has_every_harbor_file(tmp_path: Path, skill: Path) -> None:
    draft = billing_draft()
    paths = write_task_dir(draft, tmp_path / "task", skill_dir=skill)
    files = tree(paths.root)

    assert paths.is_valid()
    for required in (
        paths.config_path,
        paths.instruction_path,
        paths.dockerfile_path,
        paths.test_path,
        paths.rubric_path,
        paths.solve_path,
    ):
        assert required.is_file(), required
    assert {f"environment/workspace/{name}" for name in draft.workspace} <= set(files)
    assert files["environment/skill/SKILL.md"] == (skill / "SKILL.md").read_bytes()
    assert files["tests/expected/detail.csv"] == draft.verifier_files["expected/detail.csv"]
    assert files["instruction.md"].decode() == draft.instruction
    assert files["solution/solve.sh"].decode() == draft.solve_sh
    assert Rubric.model_validate_json(files["tests/rubric.json"]) == draft.blueprint.rubric
    assert b"python3 -I /tests/verify.py" in files["tests/test.sh"]
    for executable in ("tests/test.sh", "solution/solve.sh", "environment/skill/scripts/convert.py"):
        assert (paths.root / executable).stat().st_mode & 0o111, executable
    assert not (paths.root / "environment/workspace/notes.md").stat().st_mode & 0o111


def test_task_toml_is_harbor_1_4_with_lineage_and_judge_env_names(tmp_path: Path, skill: Path) -> None:
    draft = billing_draft()
    paths = write_task_dir(draft, tmp_path / "task", skill_dir=skill)
    raw = tomllib.loads(paths.config_path.read_text())
    config = TaskConfig.model_validate(raw)
    blueprint = draft.blueprint

    assert config.schema_version == "1.4"
    assert config.task is not None and config.task.name == "skill2env/vendor-billing-reconciliation"
    assert config.agent.timeout_sec == blueprint.environment.agent_timeout_sec
    assert config.verifier.timeout_sec == blueprint.environment.verifier_timeout_sec
    assert (config.environment.cpus, config.environment.memory_mb) == (1, blueprint.environment.memory_mb)
    assert config.environment.network_mode == "no-network"
    assert all(value == f"${{{name}}}" for name, value in config.verifier.env.items())  # names, never secrets
    assert "SKILL2ENV_LLM_JUDGE_BASE_URL" in config.verifier.env
    lineage = raw["metadata"]["skill2env"]
    assert lineage["blueprint_digest"] == blueprint.digest()
    assert lineage["patterns"] == blueprint.pattern_ids
    assert lineage["author"] == AUTHOR
    assert unknown_keys(config) == []
    # The sandbox's own reader takes the same file.
    sandbox_view = TaskDir(paths.root)
    assert sandbox_view.missing_files() == [] and sandbox_view.workdir == "/workspace"
    assert not sandbox_view.network_enabled


def test_the_dockerfile_installs_packages_and_copies_skill_and_workspace(tmp_path: Path, skill: Path) -> None:
    draft = billing_draft()
    environment = draft.blueprint.environment.model_copy(
        update={"apt_packages": ["jq", "poppler-utils", "jq"], "pip_packages": ["docling"],
                "npm_packages": ["semver@7.6.0"]}
    )  # fmt: skip
    blueprint = draft.blueprint.model_copy(update={"environment": environment})
    paths = write_task_dir(type(draft)(**{**draft.__dict__, "blueprint": blueprint}), tmp_path / "t", skill_dir=skill)
    lines = paths.dockerfile_path.read_text().splitlines()

    assert lines[0] == "FROM skill2env-base"
    assert lines[1] == DECLARED  # the marker the image builder installs them by, in a packages stage
    assert "apt-get install -y --no-install-recommends jq npm poppler-utils" in lines[2]  # npm for npm packages
    assert lines[3].endswith("pip install --no-cache-dir --break-system-packages docling")
    assert lines[4].endswith("npm install --global --no-fund --no-audit semver@7.6.0")
    assert "COPY skill/ /skills/docling/" in lines
    assert lines[-2:] == ["WORKDIR /workspace", "COPY workspace/ /workspace/"]


def test_a_blueprint_without_npm_packages_serializes_as_before_the_field_existed() -> None:
    blueprint = billing_draft().blueprint
    assert "npm_packages" not in blueprint.canonical_json()
    with_npm = blueprint.model_copy(
        update={"environment": blueprint.environment.model_copy(update={"npm_packages": ["semver@7.6.0"]})}
    )
    assert '"npm_packages":["semver@7.6.0"]' in with_npm.canonical_json()
    assert with_npm.digest() != blueprint.digest()
    assert type(blueprint).model_validate_json(with_npm.canonical_json()).environment.npm_packages == ["semver@7.6.0"]


def test_writing_is_deterministic_and_the_digest_tracks_bytes(tmp_path: Path, skill: Path) -> None:
    first = write_task_dir(billing_draft(), tmp_path / "a", skill_dir=skill).root
    second = write_task_dir(billing_draft(), tmp_path / "b", skill_dir=skill).root
    assert tree(first) == tree(second)
    assert task_digest(first) == task_digest(second)

    (second / "instruction.md").write_text("changed\n")
    assert task_digest(first) != task_digest(second)
    (second / "instruction.md").rename(second / "instruction2.md")
    assert task_digest(first) != task_digest(second)


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.txt", "a/../../b", ""])
def test_workspace_paths_may_not_escape(tmp_path: Path, name: str) -> None:
    draft = billing_draft()
    bad = type(draft)(**{**draft.__dict__, "workspace": {name: b"x"}})
    with pytest.raises(TaskWriteError):
        write_task_dir(bad, tmp_path / "task", skill_dir=None)


def test_verifier_files_may_not_replace_generated_ones(tmp_path: Path) -> None:
    draft = billing_draft()
    bad = type(draft)(**{**draft.__dict__, "verifier_files": {"rubric.json": b"{}"}})
    with pytest.raises(TaskWriteError, match=r"rubric\.json"):
        write_task_dir(bad, tmp_path / "task", skill_dir=None)


def test_the_store_is_content_addressed_and_atomic(tmp_path: Path, skill: Path) -> None:
    store = TaskStore(tmp_path / "home")
    stored = store.put_draft(billing_draft(), skill_dir=skill)
    again = store.put_draft(billing_draft(), skill_dir=skill)

    assert stored == again
    assert stored.path == tmp_path / "home" / "objects" / "sha256" / stored.digest[:2] / stored.digest
    assert stored.relative_path == f"objects/sha256/{stored.digest[:2]}/{stored.digest}"
    assert task_digest(stored.path) == stored.digest
    assert [p.name for p in store.root.iterdir()] == [stored.digest[:2]]  # no scratch folders left behind
    copied = store.put_dir(stored.path)
    assert copied.digest == stored.digest
    assert TaskPaths(store.resolve(stored.relative_path)).is_valid()


def test_task_config_toml_round_trips() -> None:
    config = TaskConfig.model_validate(
        {
            "version": "1.0",
            "task": {"name": "org/x", "authors": [{"name": "A", "email": "a@b.c"}]},
            "metadata": {"tags": ["a", "b"], "nested": {"k": 1.5, "flag": True}},
            "verifier": {"env": {"KEY WITH SPACE": "${X}"}},
            "environment": {"memory": "4G", "allow_internet": False, "cpus": 2},
        }
    )
    assert config.schema_version == "1.0" and config.environment.memory_mb == 4096
    assert config.environment.network_mode == "no-network"
    assert TaskConfig.from_toml(config.to_toml()) == config
    assert "memory =" not in config.to_toml() and "allow_internet" not in config.to_toml()


def test_toml_writer_escapes_strings() -> None:
    text = dumps_toml({"a": 'quote " backslash \\ newline \n tab \t del \x7f', "b": [1, 2.5, True]})
    assert tomllib.loads(text) == {"a": 'quote " backslash \\ newline \n tab \t del \x7f', "b": [1, 2.5, True]}
    assert json.loads(json.dumps(tomllib.loads(text)))  # plain data


def test_the_store_never_follows_a_link_out_of_the_tree_it_copies(tmp_path: Path) -> None:
    """A final workspace is a tree an agent wrote: its links to files inside it count as those files,
    its links out of it (to this machine's secrets) are left out, never read."""
    secret = tmp_path / "host-secret"
    secret.write_text("host only")
    workspace = tmp_path / "workspace"
    (workspace / "data").mkdir(parents=True)
    (workspace / "data" / "sales.csv").write_text("a,b\n")
    (workspace / "latest.csv").symlink_to("data/sales.csv")
    (workspace / "absolute").symlink_to(secret)
    (workspace / "climbing").symlink_to("../host-secret")
    (workspace / "environ").symlink_to("/proc/self/environ")
    (workspace / "data" / "hop").symlink_to("../absolute")  # inside, to a link that leads out
    (workspace / "linked-dir").symlink_to(tmp_path)

    stored = TaskStore(tmp_path / "home").put_dir(workspace)

    assert tree(stored.path) == {"data/sales.csv": b"a,b\n", "latest.csv": b"a,b\n"}
    assert task_digest(workspace) == stored.digest


def test_names_that_are_not_utf8_are_left_out_of_what_is_stored(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "kept.txt").write_text("x")
    (workspace / os.fsdecode(b"bad\xff")).write_text("x")
    (workspace / os.fsdecode(b"\xfe")).mkdir()
    (workspace / os.fsdecode(b"\xfe") / "inside.txt").write_text("x")

    stored = TaskStore(tmp_path / "home").put_dir(workspace)

    assert tree(stored.path) == {"kept.txt": b"x"}
    assert task_digest(workspace) == stored.digest
