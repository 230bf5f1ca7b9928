"""Harbor-native exports: a stored skill2env task rewritten so that Harbor itself runs and scores it.

A stored task directory is what skill2env's own sandboxes run: the verifier program is installed at
run time, the agent and the verifier share a container. An export is self-contained:

    task.toml              [task] name and version unique per task version; [agent] user = "agent";
                           [verifier] environment_mode = "separate"; artifacts = ["/workspace"]
                           (Harbor copies the agent's final workspace into the verifier's container);
                           judge variables (if any) with empty defaults, so Harbor's preflight never
                           stops on them; [metadata.skill2env.export] lists the lake's ids and iterations
    environment/Dockerfile FROM the base image by an immutable reference; the workspace owned by the agent
    tests/Dockerfile       the verifier's own image: the same base, /tests baked in
    tests/test.sh          removes stale reward files, runs verify.py (never downloads or installs)
    tests/verify.py, tests/rubric_checks/, tests/rubric.json
                           the verifier, its check library and the rubric with its expected values

`/logs/verifier/reward.json` holds `reward` only; per-item results go to `results.json` beside it.
Tasks that are not skill2env's (no `tests/rubric.json`) are exported byte for byte.

The rewrite is a fixed point: exporting an export gives the same bytes (name and version are read
back from `[metadata.skill2env.export]`), so export → import → export is byte-stable.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from skill2env.rubric import verifier_bundle
from skill2env.rubric.bundle import (
    CHECKS_PACKAGE,
    RUBRIC_FILE,
    TESTS_MOUNT,
    VERIFIER_LOGS,
    checks_budget,
    verify_command,
)
from skill2env.sandbox.base_image import BASE_IMAGE_REPOSITORY, SANDBOX_USER, BaseImageRecipe
from skill2env.tasks.harbor import JUDGE_ENV, TASK_ORG, iter_files
from skill2env.tasks.harbor_config import TaskConfig, VerifierEnvironmentMode

EXPORT_KEY = "export"
"""`[metadata.skill2env.export]`: what the export added (its presence marks a directory as exported)."""
VERSION_LENGTH = 12
VERIFIER_DOCKERFILE = "tests/Dockerfile"
DETAILS_FILE = "results.json"
_FROM_BASE = re.compile(rf"^FROM\s+{re.escape(BASE_IMAGE_REPOSITORY)}(?::[\w.-]+|@sha256:[0-9a-f]{{64}})?[ \t]*$",
                        re.MULTILINE | re.IGNORECASE)  # fmt: skip
_COPY_WORKSPACE = re.compile(r"^COPY[ \t]+(?:--chown=\S+[ \t]+)?workspace/[ \t]+(\S+)[ \t]*$", re.MULTILINE)


class HarborExportError(ValueError):
    """A stored task cannot be written as a Harbor task (its task.toml does not parse)."""


@dataclass(frozen=True)
class ExportIdentity:
    """Who a task version is in the export: the lake's ids, iterations and content digest."""

    task_name: str
    task_digest: str
    task_ids: Sequence[str] = ()
    iterations: Sequence[int] = ()

    @property
    def version(self) -> str:
        return self.task_digest[:VERSION_LENGTH]

    @property
    def folder(self) -> str:
        """The exported directory's name (and `[task].name` without the org): unique per task version."""
        return f"{self.task_name}-{self.version}"


def default_base_image() -> str:
    """The base image's content-addressed tag (its recipe's digest): immutable on one engine."""
    return BaseImageRecipe().tag


def is_skill2env_task(files: dict[str, bytes]) -> bool:
    return f"tests/{RUBRIC_FILE}" in files and "task.toml" in files


def harbor_task_files(files: dict[str, bytes], identity: ExportIdentity, *, base_image: str | None = None,
                      workdir: str = "/workspace") -> dict[str, bytes]:  # fmt: skip
    """The exported task's files (relative path → bytes) from a stored task's `files`.

    Raises:
        HarborExportError: the stored task.toml does not parse.
    """
    if not is_skill2env_task(files):
        return dict(files)
    base = base_image or default_base_image()
    bundle = {f"tests/{name}": data for name, data in verifier_bundle().items()}
    kept = {
        name: data
        for name, data in files.items()
        if not name.startswith(f"tests/{CHECKS_PACKAGE}/") and name not in bundle and name != VERIFIER_DOCKERFILE
    }
    config = _parsed_config(files["task.toml"])
    exported = {
        **kept,
        **bundle,
        "task.toml": _task_toml(config, identity, workdir).encode(),
        "tests/test.sh": test_sh(workdir, budget_s=checks_budget(config.verifier.timeout_sec)),
        VERIFIER_DOCKERFILE: verifier_dockerfile(base),
    }
    if "environment/Dockerfile" in files:
        exported["environment/Dockerfile"] = agent_dockerfile(files["environment/Dockerfile"].decode(), base)
    return exported


def export_folder(exported: dict[str, bytes], identity: ExportIdentity) -> str:
    """The directory name of an exported task: a skill2env task's `[task].name` without the org (read
    back from the export's record, so an export of an import of an export lands in the same folder);
    another task's own id (the folder it was imported from), as it travels byte for byte."""
    if not is_skill2env_task(exported):
        return identity.task_ids[0] if identity.task_ids else identity.task_name
    record = tomllib.loads(exported["task.toml"].decode()).get("metadata", {}).get("skill2env", {}).get(EXPORT_KEY)
    if isinstance(record, dict) and isinstance(record.get("name"), str) and "/" in record["name"]:
        return str(record["name"]).split("/", 1)[1]
    return identity.folder


def read_files(root: Path) -> dict[str, bytes]:
    return {relative: path.read_bytes() for relative, path in iter_files(root)}


def _parsed_config(raw: bytes) -> TaskConfig:
    try:
        return TaskConfig.from_toml(raw.decode())
    except Exception as exc:  # tomllib and pydantic errors alike: the task is unusable
        raise HarborExportError(f"task.toml does not parse: {exc}") from exc


def _task_toml(config: TaskConfig, identity: ExportIdentity, workdir: str) -> str:
    lineage = dict(config.metadata.get("skill2env") or {})
    previous = lineage.get(EXPORT_KEY)
    if isinstance(previous, dict) and previous.get("name") and previous.get("version"):
        name, version = str(previous["name"]), str(previous["version"])
        record = dict(previous)
    else:
        name, version = f"{TASK_ORG}/{identity.folder}", identity.version
        record = {
            "name": name,
            "version": version,
            "task_digest": identity.task_digest,
            "task_ids": sorted(identity.task_ids),
            "iterations": sorted(set(identity.iterations)),
        }
    config.metadata = {**config.metadata, "skill2env": {**lineage, EXPORT_KEY: record}}
    if config.task is not None:
        config.task.name, config.task.version = name, version
    config.agent.user = SANDBOX_USER
    config.verifier.environment_mode = VerifierEnvironmentMode.separate
    judged = any(key in config.verifier.env for key in JUDGE_ENV)
    others = {k: v for k, v in config.verifier.env.items() if k not in JUDGE_ENV}
    config.verifier.env = {**others, **({key: f"${{{key}:-}}" for key in JUDGE_ENV} if judged else {})}
    if workdir not in config.artifacts:
        config.artifacts = [*config.artifacts, workdir]
    return config.to_toml()


def agent_dockerfile(text: str, base_image: str) -> bytes:
    """The agent's image: FROM `base_image`, the initial workspace owned by the agent user."""
    text = _FROM_BASE.sub(f"FROM {base_image}", text)
    text = _COPY_WORKSPACE.sub(lambda m: f"COPY --chown={SANDBOX_USER}:{SANDBOX_USER} workspace/ {m.group(1)}", text)
    return text.encode()


def verifier_dockerfile(base_image: str) -> bytes:
    """The separate verifier's image: the base (for python3) and the tests; nothing of the agent's."""
    return f"FROM {base_image}\nCOPY . {TESTS_MOUNT}/\nWORKDIR {TESTS_MOUNT}\n".encode()


def test_sh(workdir: str, *, budget_s: float) -> bytes:
    """Harbor's verifier entry point: stale rewards removed, then the bundled verifier; never installs.
    `budget_s`: the checks' time budget within the task's verifier timeout (`checks_budget`), so a
    workspace that keeps the checks busy fails them rather than running the verifier past Harbor's
    timeout, which would leave the trial without a reward."""
    command = shlex.join(verify_command(workdir, judge=True, budget_s=budget_s))
    return (
        "#!/usr/bin/env bash\n"
        "# skill2env verifier: scores every rubric item on the final workspace. Writes\n"
        f'# {VERIFIER_LOGS}/reward.json ({{"reward": r}}, unscored items counting 0) and the per-item\n'
        f"# results in {VERIFIER_LOGS}/{DETAILS_FILE}. Judge items are scored when the verifier's environment\n"
        "# has SKILL2ENV_LLM_JUDGE_BASE_URL and SKILL2ENV_LLM_JUDGE_MODEL; otherwise they stay unscored.\n"
        "set -uo pipefail\n"
        f"mkdir -p {VERIFIER_LOGS}\n"
        f"rm -f {VERIFIER_LOGS}/reward.json {VERIFIER_LOGS}/reward.txt {VERIFIER_LOGS}/{DETAILS_FILE}\n"
        f"cd {TESTS_MOUNT}\n"
        f"exec {command}\n"
    ).encode()
