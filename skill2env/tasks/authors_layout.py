"""What an imported task lacks, recorded on its row (never fatal): the Skill2Env authors' published
tasks ship no `solution/`, usually no `tests/test.sh` (or one calling a file that is not there), a
Dockerfile `FROM` a public image at most, an instruction that refers to a skill folder
(`_skill_ref/`) that is not shipped, and sometimes workspace files the instruction names but the
task does not contain.

Each gap is one sentence that says what is missing and what happens instead; `import harbor`
appends them to the row's `reasons` (the row stays `built`).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from skill2env.rubric import Method, Rubric
from skill2env.rubric.eval_spec import missing_test_references
from skill2env.sandbox.task import DEFAULT_WORKDIR, workdir_of
from skill2env.tasks.harbor import TaskPaths

SKILL_REF = "_skill_ref"
"""The skill folder the authors' instructions refer to (the skill itself is not shipped with the task)."""
NO_SOLUTION = "no solution/solve.sh: the oracle gate cannot run (it reports `skipped`, and so does the partial gate)"
QUOTED_PATH = re.compile(r"`([^`\s]+)`")
PATH_LIKE = re.compile(r"^/?[\w.\-]+(?:/[\w.\-*]*)*$")
FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")
JUDGE_VARIABLE = re.compile(r"^JUDGE_")


def layout_gaps(paths: TaskPaths, instruction: str, rubric: Rubric | None, verifier_env: dict[str, str]) -> list[str]:
    """Every gap of one task directory, in a stable order (see the module docstring)."""
    gaps = []
    if not paths.solution_dir.joinpath("solve.sh").is_file():
        gaps.append(NO_SOLUTION)
    gaps += _verification_gaps(paths, rubric)
    gaps += _environment_gaps(paths)
    # Without a rubric nothing says which named files the agent writes; a skill2env task's instruction
    # names its skill's files, which live under environment/skill, and its leak gate checks the rest.
    if rubric is not None and paths.eval_spec_path.is_file():
        gaps += _instruction_gaps(paths, instruction, rubric)
    judged = sorted(key for key in verifier_env if JUDGE_VARIABLE.match(key))
    if judged and rubric is not None and any(item.method == Method.llm_judge for item in rubric.items):
        gaps.append(
            f"task.toml [verifier.env] names {', '.join(judged)}: the judge items are scored by the project's "
            "judge role instead"
        )
    return gaps


def _verification_gaps(paths: TaskPaths, rubric: Rubric | None) -> list[str]:
    if not paths.eval_spec_path.is_file() or paths.rubric_path.is_file():
        return []
    if not paths.test_path.is_file():
        return ["no tests/test.sh: the deterministic items are scored by running tests/verify.py from the final "
                "workspace"]  # fmt: skip
    try:
        script = paths.test_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    missing = missing_test_references(script, paths.tests_dir)
    if not missing:
        return []
    instead = "tests/verify.py runs directly instead" if paths.verify_path.is_file() else "it cannot run as written"
    return [f"tests/test.sh calls {', '.join(missing)}, which the task does not contain: {instead}"]


def _environment_gaps(paths: TaskPaths) -> list[str]:
    from skill2env.sandbox.base_image import BASE_IMAGE, BASE_IMAGE_REPOSITORY  # the docker SDK, only here

    gaps = []
    if paths.dockerfile_path.is_file():
        dockerfile = paths.dockerfile_path.read_text(encoding="utf-8", errors="replace")
        for image in _from_images(dockerfile):
            if image.split(":", 1)[0].split("@", 1)[0] != BASE_IMAGE_REPOSITORY:
                gaps.append(
                    f"environment/Dockerfile is FROM {image}, an image the sandbox cannot pull (no registry is "
                    f"reachable): the project's base image ({BASE_IMAGE}) stands in for it, with the workspace from "
                    "environment/workspace"
                )
    if paths.setup_script_path.is_file():
        setup = paths.setup_script_path.read_text(encoding="utf-8", errors="replace")
        if _commands(setup):
            gaps.append(
                "environment/setup.sh has commands the sandbox does not run: the workspace comes from "
                "environment/workspace on the project's base image"
            )
    if not paths.workspace_dir.is_dir():
        gaps.append("no environment/workspace: the agent starts from an empty workspace")
    return gaps


def _from_images(dockerfile: str) -> list[str]:
    """The images a Dockerfile builds FROM (stage names of earlier stages left out)."""
    images, stages = [], set()
    for line in dockerfile.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].upper() == "FROM":
            rest = [w for w in words[1:] if not w.startswith("--")]
            if not rest:
                continue
            if rest[0] not in stages:
                images.append(rest[0])
            if len(rest) >= 3 and rest[1].upper() == "AS":
                stages.add(rest[2])
    return images


def _commands(script: str) -> list[str]:
    return [line for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _instruction_gaps(paths: TaskPaths, instruction: str, rubric: Rubric) -> list[str]:
    workspace = paths.workspace_dir
    present = _workspace_paths(workspace)
    gaps = []
    if re.search(rf"(?<![\w/]){SKILL_REF}\b", instruction) and not (workspace / SKILL_REF).is_dir():
        gaps.append(
            f"instruction.md refers to the skill folder {SKILL_REF}/, which the task does not ship: the agent works "
            "without it"
        )
    deliverables = [glob for item in rubric.items for glob in item.target_files]
    workdir = _workdir(paths)
    missing = []
    for quoted in QUOTED_PATH.findall(instruction):
        relative = _workspace_relative(quoted, workdir)
        if relative is None or relative.split("/", 1)[0] == SKILL_REF or relative in missing:
            continue
        if _is_deliverable(relative, deliverables) or _is_present(relative, present):
            continue
        missing.append(relative)
    if missing:
        gaps.append(f"instruction.md names {', '.join(missing)}, which environment/workspace does not contain")
    return gaps


def _workdir(paths: TaskPaths) -> str:
    if paths.dockerfile_path.is_file():
        return workdir_of(paths.dockerfile_path.read_text(encoding="utf-8", errors="replace"))
    return DEFAULT_WORKDIR


def _workspace_relative(quoted: str, workdir: str) -> str | None:
    """A quoted token of the instruction as a workspace path, or None when it is no file path in the
    workspace (a command, a value, a column list, a path elsewhere)."""
    text = quoted.strip().rstrip(".,;:")
    if not PATH_LIKE.match(text) or "://" in text:
        return None
    if text.startswith("/"):
        if not (text == workdir or text.startswith(workdir.rstrip("/") + "/")):
            return None
        text = text[len(workdir) :].lstrip("/")
    text = posixpath.normpath(text) if text else ""
    if not text or text == "." or text.startswith(".."):
        return None
    if "/" not in text and not FILE_SUFFIX.search(text):
        return None  # a bare word (`total_claimed`), not a file
    return text


def _workspace_paths(workspace: Path) -> set[str]:
    if not workspace.is_dir():
        return set()
    return {path.relative_to(workspace).as_posix() for path in workspace.rglob("*")}


def _is_present(relative: str, present: Iterable[str]) -> bool:
    """The path, a folder of that name, a file matching it as a glob, or a file ending with it exists."""
    wanted = relative.rstrip("/")
    return any(
        path == wanted or path.startswith(wanted + "/") or fnmatch.fnmatch(path, wanted) or path.endswith("/" + wanted)
        for path in present
    )


def _is_deliverable(relative: str, globs: list[str]) -> bool:
    """The path is (or is a folder of) what some item reads: the agent writes it."""
    wanted = relative.rstrip("/")
    for glob in globs:
        if fnmatch.fnmatch(wanted, glob) or fnmatch.fnmatch(glob, wanted) or glob.startswith(wanted + "/"):
            return True
    return False
