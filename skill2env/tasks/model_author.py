"""The model author: the author role's model drafts a blueprint, then builds the task from it.

    author = model_author(LlmSettings.load(home), log=lake)   # None: no endpoint; `lake`: any AppendLog
    result = author.draft(skill_row, selection_rows)                            # TaskDraft | Rejection

1. **Blueprint.** From the skill (SKILL.md, profile) and its selected patterns (with the pool's
   construction notes), one structured call returns a `BlueprintAnswer`. It is validated
   (pydantic), then checked: `validate_blueprint` (criteria ↔ rubric, facts, weights), pattern
   ids from the skill's selection or the pool (and not conflicting), rubric checks registered
   with the params they take. Errors go back to the model (the role's `max_repairs` rounds);
   still invalid, the skill gets a `Rejection` naming the failed checks.
2. **Build.** One structured call returns the instruction, inline workspace files and/or a
   workspace generator (run in a bwrap sandbox, see `generator`), `solve.sh`, the apt / pip
   packages (into `blueprint.environment`; what the base image has is dropped) and the
   verifier's expected files. Answers with bad paths or packages, an instruction that does not
   name the skill's mount, or a solution that reads `/tests` or writes author-only values are
   sent back inside the call. The assembled draft then goes through `check_draft`; its errors
   (and a failed or non-deterministic generator) go back to the model `build_repairs` times.
   After that a draft that still fails the checks is returned as is — `build_task` stores it
   with status `rejected` and the check names as reasons — and anything that could not even be
   assembled becomes a `Rejection`.

Infrastructure failures (`ModelUnavailable`, …) are raised: the pipeline records the skill as an
`error`, not as the model's fault. Model-output failures (invalid after repair, refusals,
truncation) are rejections.

Ledger: the client's `llm_calls` rows are appended to `log` after every skill drafted (the
authoring asset hands it the lake as an `AppendLog`); `close()` closes the client and flushes what is left.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from skill2env.lake.ports import AppendLog
from skill2env.llm import (
    CallContext,
    Ledger,
    LlmSettings,
    ModelClient,
    ModelOutputError,
    ModelOutputInvalid,
    ModelOverBudget,
    Prompt,
    render,
)
from skill2env.patterns.pool import PatternPool, seed_pool
from skill2env.rubric.checks import REGISTRY
from skill2env.sandbox import TaskDir
from skill2env.tasks.author_answers import (
    BlueprintAnswer,
    BuildAnswer,
    blueprint_findings,
    build_findings,
)
from skill2env.tasks.authoring import Rejection
from skill2env.tasks.blueprint import Blueprint, Environment, SkillRef
from skill2env.tasks.checks import Finding, check_draft
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.generator import GeneratorError, GeneratorRunner, GeneratorUnavailable, SandboxGeneratorRunner

logger = logging.getLogger(__name__)

ROLE = "author"
BLUEPRINT_TEMPLATE = "author_blueprint"
BUILD_TEMPLATE = "author_build"
SKILLS_MOUNT = "/skills"
MAX_SKILL_MD_CHARS = 12_000
MAX_REASONS = 8
MAX_PARENT_FILES = 200
BUILD_REPAIRS = 1
"""Rounds in which a built task's failed checks go back to the model."""


class ModelAuthor:
    """An `Author` backed by the author role's model (see the module docstring)."""

    def __init__(
        self,
        client: ModelClient,
        *,
        pool: PatternPool | None = None,
        runner: GeneratorRunner | None = None,
        log: AppendLog | None = None,
        build_repairs: int = BUILD_REPAIRS,
        check_determinism: bool = True,
    ) -> None:
        self.client = client
        self._pool = pool
        self.runner: GeneratorRunner = runner or SandboxGeneratorRunner()
        self.log = log
        """Where `llm_calls` rows go after every skill (None: they stay in the client's ledger)."""
        self.build_repairs = build_repairs
        self.check_determinism = check_determinism
        """Run the generator twice and refuse a workspace that differs (the task digest must be stable)."""
        self._generator_available = runner is not None or _bwrap_available()
        self._deadline: float | None = None
        """When the skill being drafted runs out of the role's `budget_seconds` (`time.monotonic()`)."""
        """False once a generator could not run here: the model is then asked for inline files only."""

    @property
    def name(self) -> str:
        return f"model:{self.client.model}"

    @property
    def _max_tokens(self) -> int:
        """Blueprints and builds are long answers: ask with the role's ceiling at once, not after a truncation."""
        return max(self.client.config.max_tokens, self.client.config.max_tokens_ceiling)

    @property
    def pool(self) -> PatternPool:
        if self._pool is None:
            self._pool = seed_pool()
        return self._pool

    def draft(self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]) -> TaskDraft | Rejection:
        self._start_budget()
        try:
            skill = skill_ref(skill_row)
            domain = str(skill_row.get("domain") or "other")
            blueprint = self._blueprint(skill_row, selection_rows, skill, domain)
            if isinstance(blueprint, Rejection):
                return blueprint
            return self._build(blueprint)
        finally:
            self.flush()

    def rebuild(self, blueprint: Blueprint, parent_dir: Path | None = None) -> TaskDraft | Rejection:
        """Build the task of a revised (hardened) blueprint; the earlier version's Harbor directory,
        when given, shows the model what to keep."""
        self._start_budget()
        try:
            return self._build(blueprint, parent=_parent_view(blueprint, parent_dir) if parent_dir else None)
        finally:
            self.flush()

    def _start_budget(self) -> None:
        """Start the clock of the role's `budget_seconds` for one skill (none when unset)."""
        budget = self.client.config.budget_seconds
        self._deadline = None if budget is None else time.monotonic() + budget

    def flush(self) -> int:
        """Append the buffered `llm_calls` rows to the lake (when there is one); never raises."""
        if self.log is None or not len(self.client.ledger):
            return 0
        try:
            return self.client.ledger.flush(self.log)
        except Exception as exc:  # bookkeeping must not fail a task; the rows stay buffered for close()
            logger.warning("author %s: llm_calls not written: %s", self.name, exc)
            return 0

    def close(self) -> None:
        """Close the client's connections and flush the rest of the ledger."""
        self.client.close()
        self.flush()

    # -- step 1: the blueprint ------------------------------------------------------------------

    def _blueprint(
        self, skill_row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], skill: SkillRef, domain: str
    ) -> Blueprint | Rejection:
        selected = [str(r["pattern_id"]) for r in rows if r.get("pattern_id")]
        suffix = hashlib.sha256(skill.skill_id.encode()).hexdigest()[:6]

        def findings(answer: BlueprintAnswer) -> tuple[Blueprint | None, list[Finding]]:
            return blueprint_findings(answer, skill=skill, domain=domain, task_name=f"{answer.task_name}-{suffix}",
                                      selected=selected, pool=self.pool)  # fmt: skip

        prompt = self._blueprint_prompt(skill_row, rows, skill, domain)
        try:
            answer = self.client.structured(prompt, BlueprintAnswer, check=lambda a: _reasons(findings(a)[1]),
                                            max_tokens=self._max_tokens, partition_key=domain,
                                            deadline=self._deadline).value  # fmt: skip
        except ModelOutputError as exc:
            return Rejection(_failure("blueprint", exc), author=self.name, failed=True)
        blueprint, errors = findings(answer)
        if blueprint is None:  # the check passed, so this cannot happen; say so rather than crash
            return Rejection(
                "blueprint rejected: " + "; ".join(_reasons(errors)[:MAX_REASONS]), author=self.name, failed=True
            )
        return blueprint

    def _blueprint_prompt(
        self, skill_row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], skill: SkillRef, domain: str
    ) -> Prompt:
        text = str(skill_row.get("skill_md_text") or "")
        dependencies = [f"{d.get('ecosystem')}:{d.get('name')}" for d in skill_row.get("dependencies") or []
                        if isinstance(d, Mapping)]  # fmt: skip
        return render(
            BLUEPRINT_TEMPLATE,
            skill={
                "name": skill.name,
                "mount": skill.mount,
                "description": str(skill_row.get("description") or ""),
                "languages": list(skill_row.get("languages") or []),
                "programs": list(skill_row.get("programs") or []),
                "dependencies": dependencies,
                "skill_md": text[:MAX_SKILL_MD_CHARS],
                "truncated": len(text) > MAX_SKILL_MD_CHARS,
            },
            domain=domain,
            patterns=[self._pattern_notes(row) for row in rows if row.get("pattern_id")],
            checks=[_check_notes(name) for name in sorted(REGISTRY)],
        )

    def _pattern_notes(self, row: Mapping[str, Any]) -> dict[str, Any]:
        pattern_id = str(row["pattern_id"])
        notes: dict[str, Any] = {"id": pattern_id, "rationale": row.get("rationale") or "",
                                 "capability": row.get("capability") or "", "description": ""}  # fmt: skip
        if pattern_id in self.pool:
            pattern = self.pool[pattern_id]
            notes |= {
                "capability": pattern.capability.value,
                "description": pattern.description,
                "workspace": pattern.construction.workspace,
                "instruction": pattern.construction.instruction,
                "must_not_say": pattern.construction.must_not_say,
                "evaluator": pattern.construction.evaluator,
                "shortcut": pattern.evidence.shortcut,
                "intensity": pattern.intensity[0].description,
            }
        return notes

    # -- step 2: the build ----------------------------------------------------------------------

    def _build(self, blueprint: Blueprint, *, parent: Mapping[str, Any] | None = None) -> TaskDraft | Rejection:
        prompt = self._build_prompt(blueprint, parent)
        draft: TaskDraft | None = None
        reasons: list[str] = []
        for _ in range(self.build_repairs + 1):
            check = _build_check(blueprint, generator_available=self._generator_available)
            try:
                answer = self.client.structured(prompt, BuildAnswer, check=check, max_tokens=self._max_tokens,
                                                partition_key=blueprint.domain,
                                                deadline=self._deadline).value  # fmt: skip
            except ModelOutputError as exc:
                return Rejection(_failure("build", exc), author=self.name, failed=True)
            draft, problems = self._assemble(blueprint, answer)
            reasons = problems if draft is None else _reasons(check_draft(draft).errors)
            if draft is not None and not reasons:
                return draft
            prompt = prompt.extended(_feedback(answer, reasons))
        if draft is not None:
            return draft  # fails the author-side checks: stored as `rejected`, with their names, by build_task
        return Rejection(
            "the task could not be built: " + "; ".join(reasons[:MAX_REASONS]), author=self.name, failed=True
        )

    def _build_prompt(self, blueprint: Blueprint, parent: Mapping[str, Any] | None = None) -> Prompt:
        from skill2env.sandbox.base_image import BaseImageRecipe  # the docker SDK, only when building

        data = blueprint.model_dump(mode="json", exclude={"environment", "revision", "schema_version"})
        return render(
            BUILD_TEMPLATE,
            blueprint_json=json.dumps(data, indent=1, ensure_ascii=False),
            mount=blueprint.skill.mount,
            base_image=blueprint.environment.base_image,
            base_packages=BaseImageRecipe().packages,
            generator_available=self._generator_available,
            parent=parent,
        )

    def _assemble(self, blueprint: Blueprint, answer: BuildAnswer) -> tuple[TaskDraft | None, list[str]]:
        """The draft an answer makes, or None and why (the generator failed, files collide)."""
        workspace: dict[str, bytes] = {}
        if answer.generator.strip():
            try:
                workspace = self._generate(answer.generator)
            except GeneratorUnavailable as exc:
                self._generator_available = False
                return None, [f"build.generator_unavailable: {exc}; give every workspace file inline instead"]
            except GeneratorError as exc:
                return None, [f"generator.failed: {exc}"]
        for entry in answer.files:
            if entry.path in workspace:
                return None, [f"build.duplicate_path: {entry.path} is both written by the generator and given inline"]
            workspace[entry.path] = entry.content.encode()
        environment = _environment(blueprint.environment, answer)
        unresolved = _unresolved(environment)
        if unresolved:
            return None, [f"build.unresolved_package: {problem}" for problem in unresolved]
        blueprint = blueprint.model_copy(update={"environment": environment})
        draft = TaskDraft(
            blueprint=Blueprint.model_validate(blueprint.model_dump()),
            instruction=answer.instruction,
            workspace=dict(sorted(workspace.items())),
            solve_sh=answer.solve_sh,
            verifier_files={f.path: f.content.encode() for f in answer.verifier_files},
            author=self.name,
        )
        return draft, []

    def _generate(self, script: str) -> dict[str, bytes]:
        files = self.runner.run(script)
        if not files:
            raise GeneratorError("the generator wrote no files")
        if self.check_determinism:
            again = self.runner.run(script)
            differing = sorted(p for p in set(files) | set(again) if files.get(p) != again.get(p))
            if differing:
                shown = ", ".join(differing[:5])
                raise GeneratorError(f"two runs wrote different files ({shown}); seed every random choice, no clock")
        return files


def model_author(
    settings: LlmSettings, *, log: AppendLog | None = None, context: CallContext | None = None
) -> ModelAuthor | None:
    """The model author when the author role has an endpoint; None otherwise."""
    if not settings.role(ROLE).configured:
        return None
    context = context or CallContext(asset_key="tasks")
    return ModelAuthor(ModelClient.for_role(settings, ROLE, ledger=Ledger(), context=context), log=log)


def skill_ref(skill_row: Mapping[str, Any]) -> SkillRef:
    """The skill as a blueprint names it, mounted at `/skills/<slug of its name>`."""
    name = str(skill_row.get("name") or skill_row["path"]).strip() or "skill"
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "skill"
    return SkillRef(skill_id=str(skill_row["skill_id"]), name=name, path=str(skill_row["path"]),
                    mount=f"{SKILLS_MOUNT}/{slug}")  # fmt: skip


def _parent_view(blueprint: Blueprint, parent_dir: Path) -> dict[str, Any]:
    """What the build prompt shows of the earlier version: its instruction, solution and file list."""
    task = TaskDir(parent_dir)
    diff = blueprint.revision.diff if blueprint.revision else []
    return {
        "revision_json": json.dumps(diff, indent=1, ensure_ascii=False, default=str)[:MAX_SKILL_MD_CHARS],
        "instruction": _read(task.instruction),
        "solve_sh": _read(task.solve_script),
        "files": sorted(str(path.relative_to(task.workspace_dir)) for path in task.workspace_dir.rglob("*")
                        if path.is_file())[:MAX_PARENT_FILES],
    }  # fmt: skip


def _read(path: Path) -> str:
    return path.read_text(errors="replace")[:MAX_SKILL_MD_CHARS] if path.is_file() else ""


def _bwrap_available() -> bool:
    from skill2env.sandbox.bwrap_backend import bwrap_available  # the docker SDK, only when authoring

    return bwrap_available()


def _check_notes(name: str) -> dict[str, Any]:
    check = REGISTRY[name]
    optional = [p for p in check.optional if p != "tests_dir"]  # filled in by the verifier
    return {"name": name, "description": check.description, "required": list(check.required), "optional": optional}


def _environment(base: Environment, answer: BuildAnswer) -> Environment:
    from skill2env.sandbox.base_image import BaseImageRecipe

    installed = set(BaseImageRecipe().packages)
    apt = sorted({p for p in answer.apt_packages if p not in installed})
    return base.model_copy(update={"apt_packages": apt, "pip_packages": sorted(set(answer.pip_packages)),
                                   "npm_packages": sorted(set(answer.npm_packages))})  # fmt: skip


def _unresolved(environment: Environment) -> list[str]:
    """The declared packages the host's package indexes cannot provide (checked before any build)."""
    if not (environment.apt_packages or environment.pip_packages or environment.npm_packages):
        return []
    from skill2env.sandbox.packages import unresolved  # runs apt-cache and pip, only when something is declared

    return unresolved(environment.apt_packages, environment.pip_packages, environment.npm_packages)


def _build_check(blueprint: Blueprint, *, generator_available: bool) -> Callable[[BuildAnswer], list[str]]:
    def check(answer: BuildAnswer) -> list[str]:
        return _reasons(build_findings(answer, blueprint, generator_available=generator_available))

    return check


def _reasons(findings: Sequence[Finding]) -> list[str]:
    return [finding.reason for finding in findings]


def _failure(step: str, exc: ModelOutputError) -> str:
    if isinstance(exc, ModelOverBudget):
        return f"{step}: ModelOverBudget: {exc} (past the author's budget_seconds for one skill)"
    if isinstance(exc, ModelOutputInvalid) and exc.errors:
        return f"{step} still invalid after repair ({exc.attempts} requests): " + "; ".join(exc.errors[:MAX_REASONS])
    return f"{step}: {type(exc).__name__}: {exc}"


def _feedback(answer: BuildAnswer, reasons: Sequence[str]) -> list[dict[str, Any]]:
    listed = "\n".join(f"- {reason}" for reason in reasons[: MAX_REASONS * 2])
    return [
        {"role": "assistant", "content": answer.model_dump_json()},
        {"role": "user", "content": "The task built from that answer fails these author-side checks:\n"
                                    f"{listed}\nFix every one and reply with the complete corrected JSON object."},
    ]  # fmt: skip
