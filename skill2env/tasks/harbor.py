"""Harbor task directories: their paths, writing one from a `TaskDraft`, and the directory digest.

    <task>/task.toml                 Harbor TaskConfig, schema 1.4 (+ skill2env lineage in [metadata.skill2env])
    <task>/instruction.md            what the agent reads
    <task>/environment/Dockerfile    FROM skill2env-base; packages; skill and workspace copied in
    <task>/environment/skill/        the skill folder (copied to blueprint.skill.mount)
    <task>/environment/workspace/    the initial workspace W0 (copied to /workspace)
    <task>/tests/test.sh             runs /tests/verify.py → /logs/verifier/reward.json
    <task>/tests/rubric.json         the rubric, expected values included (reaches the verifier only)
    <task>/solution/solve.sh         the reference solution

Writing is deterministic: the same draft and skill folder give the same bytes, so the same
`task_digest` (sha256 over the sorted relative paths and the bytes of every file).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from skill2env.rubric import Method, Rubric
from skill2env.sandbox.packages import declared_lines
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor_config import (
    AgentConfig,
    Author,
    EnvironmentConfig,
    NetworkMode,
    PackageInfo,
    TaskConfig,
    VerifierConfig,
)

TASK_ORG = "skill2env"
WORKDIR = "/workspace"
VERIFIER_SCRIPT = "verify.py"
RESERVED_VERIFIER_FILES = frozenset({"test.sh", "rubric.json"})
SKILL_SKIP_DIRS = frozenset({".git", "__pycache__", ".venv", "node_modules"})
JUDGE_ENV = ("SKILL2ENV_LLM_JUDGE_BASE_URL", "SKILL2ENV_LLM_JUDGE_MODEL", "SKILL2ENV_LLM_JUDGE_API_KEY")
"""What a verifier with judge items needs, passed as `${NAME}` references Harbor resolves on the host."""
_NETWORK = {"none": NetworkMode.no_network, "no-network": NetworkMode.no_network, "public": NetworkMode.public,
            "bridge": NetworkMode.public, "allowlist": NetworkMode.allowlist}  # fmt: skip

TEST_SH = """#!/usr/bin/env bash
# skill2env verifier: scores every item of /tests/rubric.json and writes /logs/verifier/reward.json
# ({"reward": r}, the per-item results beside it); no reward file means an infrastructure error.
# Isolated Python (-I): nothing the agent left in the workspace can shadow a module the verifier imports.
set -uo pipefail
mkdir -p /logs/verifier
rm -f /logs/verifier/reward.json /logs/verifier/reward.txt
cd /tests
exec python3 -I /tests/verify.py
"""


class TaskWriteError(ValueError):
    """A draft cannot be written as a task directory (a path escapes its folder, a reserved name is reused)."""


class TaskPaths:
    """The files of one Harbor task directory: one property per file, and `is_valid()`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __repr__(self) -> str:
        return f"TaskPaths({str(self.root)!r})"

    @property
    def config_path(self) -> Path:
        return self.root / "task.toml"

    @property
    def instruction_path(self) -> Path:
        return self.root / "instruction.md"

    @property
    def environment_dir(self) -> Path:
        return self.root / "environment"

    @property
    def dockerfile_path(self) -> Path:
        return self.environment_dir / "Dockerfile"

    @property
    def setup_script_path(self) -> Path:
        """The Skill2Env authors' alternative to a Dockerfile."""
        return self.environment_dir / "setup.sh"

    @property
    def workspace_dir(self) -> Path:
        return self.environment_dir / "workspace"

    @property
    def skill_dir(self) -> Path:
        return self.environment_dir / "skill"

    @property
    def tests_dir(self) -> Path:
        return self.root / "tests"

    @property
    def test_path(self) -> Path:
        return self.tests_dir / "test.sh"

    @property
    def rubric_path(self) -> Path:
        return self.tests_dir / "rubric.json"

    @property
    def eval_spec_path(self) -> Path:
        """The Skill2Env authors' rubric (`tests/eval_spec.json`)."""
        return self.tests_dir / "eval_spec.json"

    @property
    def verify_path(self) -> Path:
        return self.tests_dir / VERIFIER_SCRIPT

    @property
    def solution_dir(self) -> Path:
        return self.root / "solution"

    @property
    def solve_path(self) -> Path:
        return self.solution_dir / "solve.sh"

    def is_valid(self) -> bool:
        """Harbor's minimum: task.toml, instruction.md, environment/ and a verifier entry point."""
        entry = self.test_path.is_file() or self.eval_spec_path.is_file()
        files = self.config_path.is_file() and self.instruction_path.is_file()
        return entry and files and self.environment_dir.is_dir()


def write_task_dir(draft: TaskDraft, dest: Path, *, skill_dir: Path | None) -> TaskPaths:
    """Write `draft` as a Harbor task directory at `dest` (created; must not hold files yet).

    `skill_dir` is the skill folder, copied to `environment/skill/` and into the image at
    `blueprint.skill.mount`; `None` leaves the skill out (tests of the format only).

    Raises:
        TaskWriteError: a workspace or verifier path is absolute, escapes its folder, or reuses a reserved name.
        FileExistsError: `dest` already holds files.
    """
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    for name, content in sorted(task_files(draft, skill_dir=skill_dir).items()):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o755 if _executable(name, skill_dir) else 0o644)
    return TaskPaths(dest)


def task_files(draft: TaskDraft, *, skill_dir: Path | None) -> dict[str, bytes]:
    """Every file of the task directory by relative path (what `write_task_dir` writes)."""
    blueprint = draft.blueprint
    workspace = {_safe_relative(name, "workspace"): data for name, data in draft.workspace.items()}
    verifier = {_safe_relative(name, "verifier"): data for name, data in draft.verifier_files.items()}
    reserved = sorted(RESERVED_VERIFIER_FILES & set(verifier))
    if reserved:
        raise TaskWriteError(f"verifier files may not replace the generated {', '.join(reserved)}")
    skill = dict(_skill_files(skill_dir)) if skill_dir is not None else {}
    files = {
        "task.toml": task_config(blueprint, author=draft.author).to_toml().encode(),
        "instruction.md": _text_file(draft.instruction),
        "environment/Dockerfile": dockerfile(blueprint, has_workspace=bool(workspace), has_skill=bool(skill)).encode(),
        "tests/test.sh": TEST_SH.encode(),
        "tests/rubric.json": rubric_json(blueprint.rubric),
        "solution/solve.sh": _text_file(draft.solve_sh),
    }
    files |= {f"environment/workspace/{name}": data for name, data in workspace.items()}
    files |= {f"environment/skill/{name}": data for name, data in skill.items()}
    files |= {f"tests/{name}": data for name, data in verifier.items()}
    return files


def task_config(blueprint: Blueprint, *, author: str) -> TaskConfig:
    """The `task.toml` of a blueprint's task: limits from `blueprint.environment`, lineage in metadata."""
    env = blueprint.environment
    judged = any(item.method == Method.llm_judge for item in blueprint.rubric.items)
    return TaskConfig(
        task=PackageInfo(
            name=f"{TASK_ORG}/{blueprint.task_name}",
            description=" ".join(blueprint.goal.split())[:300],
            authors=[Author(name=author)],
            keywords=[blueprint.domain, blueprint.skill.name, *blueprint.pattern_ids],
        ),
        metadata={
            "category": blueprint.domain,
            "tags": blueprint.pattern_ids,
            "skill2env": {
                "task_name": blueprint.task_name,
                "iteration": blueprint.iteration,
                "blueprint_digest": blueprint.digest(),
                "parent_digest": blueprint.revision.parent_digest if blueprint.revision else None,
                "skill_id": blueprint.skill.skill_id,
                "skill_name": blueprint.skill.name,
                "skill_path": blueprint.skill.path,
                "skill_mount": blueprint.skill.mount,
                "domain": blueprint.domain,
                "patterns": blueprint.pattern_ids,
                "author": author,
            },
        },
        verifier=VerifierConfig(
            timeout_sec=float(env.verifier_timeout_sec),
            env={name: f"${{{name}}}" for name in JUDGE_ENV} if judged else {},
        ),
        agent=AgentConfig(timeout_sec=float(env.agent_timeout_sec)),
        environment=EnvironmentConfig(
            cpus=env.cpus,
            memory_mb=env.memory_mb,
            storage_mb=env.storage_mb,
            network_mode=_NETWORK.get(env.network_mode, NetworkMode.no_network),
        ),
    )


def dockerfile(blueprint: Blueprint, *, has_workspace: bool = True, has_skill: bool = True) -> str:
    env = blueprint.environment
    lines = [f"FROM {env.base_image}", *declared_lines(env.apt_packages, env.pip_packages, env.npm_packages)]
    mount = blueprint.skill.mount.rstrip("/") or "/skills"
    if has_skill:
        lines.append(f"COPY skill/ {mount}/")
    lines.append(f"WORKDIR {WORKDIR}")
    if has_workspace:
        lines.append(f"COPY workspace/ {WORKDIR}/")
    return "\n".join(lines) + "\n"


def rubric_json(rubric: Rubric) -> bytes:
    """The rubric as the verifier reads it: sorted keys, two-space indent, trailing newline."""
    return (json.dumps(rubric.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def task_digest(root: Path) -> str:
    """sha256 over every regular file's relative path, size and bytes, in sorted path order."""
    digest = hashlib.sha256()
    for relative, path in iter_files(root):
        data = path.read_bytes()
        digest.update(f"{relative}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def iter_files(root: Path) -> Iterator[tuple[str, Path]]:
    """(relative posix path, path) of every regular file below `root`, sorted by relative path.

    A link counts as the file it leads to only where that file is below `root` too. A link out of
    it (absolute, `..` past the top, `/proc/self/environ`) is left out and never read: the trees
    walked here include an agent's final workspace, and following its links on this machine would
    copy this machine's files (as this process's user) into the store. Directories reached through
    links are not entered. A name that is not UTF-8 (which no digest, task file or trajectory can
    hold) is left out, with all below it: an agent's `touch $'\\xff'` must not make its workspace
    impossible to store."""
    top = root.resolve()
    found: list[tuple[str, Path]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if _is_utf8(d) and not (Path(folder) / d).is_symlink()]
        for name in filter(_is_utf8, names):
            path = Path(folder) / name
            if path.is_symlink() and not Path(os.path.realpath(path)).is_relative_to(top):
                continue
            if path.is_file():
                found.append((path.relative_to(root).as_posix(), path))
    yield from sorted(found)


def _is_utf8(name: str) -> bool:
    """Whether a name from the file system is UTF-8 (undecodable bytes arrive as lone surrogates)."""
    try:
        name.encode()
    except UnicodeEncodeError:
        return False
    return True


def _safe_relative(name: str, what: str) -> str:
    posix = PurePosixPath(name)
    normal = posixpath.normpath(name)
    if not name or posix.is_absolute() or normal.startswith("../") or normal in {".", ".."} or "\\" in name:
        raise TaskWriteError(f"{what} path {name!r} must be relative and stay inside its folder")
    return normal


def _skill_files(skill_dir: Path) -> Iterator[tuple[str, bytes]]:
    if not skill_dir.is_dir():
        raise TaskWriteError(f"skill folder {skill_dir} does not exist")
    for folder, dirs, names in os.walk(skill_dir):
        dirs[:] = sorted(d for d in dirs if d not in SKILL_SKIP_DIRS and not (Path(folder) / d).is_symlink())
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():  # links are never followed out of the skill
                yield path.relative_to(skill_dir).as_posix(), path.read_bytes()


def _executable(name: str, skill_dir: Path | None) -> bool:
    if name.endswith(".sh"):
        return True
    if skill_dir is not None and name.startswith("environment/skill/"):
        return bool((skill_dir / name.removeprefix("environment/skill/")).stat().st_mode & 0o111)
    return False


def _text_file(text: str) -> bytes:
    return (text.rstrip("\n") + "\n").encode()
