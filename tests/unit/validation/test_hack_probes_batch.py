"""The hack-probe batch without sandboxes: the verifier's batch mode loads a candidate exactly as the
host's copy-in does and scores it as the single mode does; the host keeps only verdicts that do not
depend on the process; builders leave hard-linked inputs alone."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skill2env.kits import KITS
from skill2env.rubric.bundle import verify_command, write_bundle
from skill2env.rubric.evaluate import _refused_names
from skill2env.rubric.models import Rubric
from skill2env.rubric.verify_main import BatchUnsupported, load_candidate, read_manifest, workspace_owner
from skill2env.tasks.blueprint import SkillRef
from skill2env.validation.hack_probes.batch import BATCH_MANIFEST, _result, stage, workspace_digest
from skill2env.validation.hack_probes.content import BUILDERS
from skill2env.validation.hack_probes.instruction import read_view
from skill2env.validation.hack_probes.runner import remove_tree

SKILL = SkillRef(skill_id="s-docling", name="docling", path="docling")


def _rubric(workspace: str = "/workspace") -> Rubric:
    return Rubric.model_validate({"items": [
        {"id": "report", "description": "the report says the total", "weight": 0.4, "method": "deterministic",
         "check": {"check": "text_contains", "params": {"path": "report.md", "contains": "Total: 81"}}},
        {"id": "table", "description": "the table has 3 rows", "weight": 0.3, "method": "deterministic",
         "check": {"check": "row_count", "params": {"path": f"{workspace}/out/table.csv", "expected": 3}}},
        {"id": "tone", "description": "the report is clear", "weight": 0.3, "method": "llm_judge",
         "judge_instruction": "Is it clear?", "target_files": ["report.md", "out/*.csv"]},
    ]})  # fmt: skip


RUBRIC = _rubric()


def _snapshot(root: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under `root` (and `root` itself): type, mode, times, contents."""
    entries = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
        xattrs = {name: os.getxattr(path, name) for name in os.listxattr(path, follow_symlinks=False)}
        entries[path.relative_to(root).as_posix()] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode),
                                                      info.st_mtime_ns, info.st_uid, data, xattrs)  # fmt: skip
    return entries


def _candidates(root: Path) -> dict[str, Path]:
    """Hand-made candidates with every kind of entry the builders make."""
    made = {}
    good = root / "good"
    (good / "out").mkdir(parents=True)
    (good / "report.md").write_text("Total: 81\n")
    (good / "out/table.csv").write_text("a,b\n1,2\n3,4\n5,6\n")
    os.setxattr(good / "out/table.csv", "user.origin", b"probe")
    os.setxattr(good / "out", "user.origin", b"probe")
    made["good"] = good
    hostile = root / "hostile"
    (hostile / "out/deep").mkdir(parents=True)
    (hostile / "report.md").symlink_to("/etc/passwd")
    (hostile / "out/table.csv").mkdir()
    os.mkfifo(hostile / "out/pipe.csv")
    (hostile / "out/deep/secret.txt").write_text("x")
    (hostile / "tool.sh").write_text("#!/bin/sh\n")
    (hostile / "tool.sh").chmod(0o755)
    (hostile / "out/deep/secret.txt").chmod(0)
    (hostile / "out/deep").chmod(0)
    made["hostile"] = hostile
    empty = root / "empty"
    empty.mkdir()
    made["empty"] = empty
    return made


def _standard_load(candidate: Path, workspace: Path) -> None:
    """What `load_workspace` + the bwrap copy-in do on the host: clear, stage without what is refused,
    copy into the existing workspace."""
    remove_tree(workspace)
    workspace.mkdir(parents=True)
    if any(candidate.iterdir()):
        staged = workspace.parent / "staged"
        shutil.copytree(candidate, staged, symlinks=True, ignore=_refused_names)
        shutil.copytree(staged, workspace, symlinks=True, dirs_exist_ok=True)
        remove_tree(staged)


def test_a_candidate_is_loaded_exactly_as_the_hosts_copy_in_loads_it(tmp_path: Path) -> None:
    for name, candidate in _candidates(tmp_path / "candidates").items():
        expected, got = tmp_path / "expected" / name, tmp_path / "got" / name
        _standard_load(candidate, expected)
        got.mkdir(parents=True)
        (got / "stale.txt").write_text("from the previous candidate")
        (got / "closed").mkdir()
        (got / "closed").chmod(0)
        staged = tmp_path / "staged" / name
        shutil.copytree(candidate, staged, symlinks=True, ignore=_refused_names)
        copy = any(candidate.iterdir())
        refused = load_candidate(staged, got, None, copy=copy)
        assert refused == []  # the host removed them already; the loader refuses them again regardless
        got_entries, expected_entries = _snapshot(got), _snapshot(expected)
        if not copy:  # nothing is copied: the folder keeps the time it was emptied at, in either path
            got_entries["."], expected_entries["."] = got_entries["."][:2], expected_entries["."][:2]
        assert got_entries == expected_entries, name


def test_the_loader_refuses_links_and_special_files_itself(tmp_path: Path) -> None:
    candidate = _candidates(tmp_path / "candidates")["hostile"]
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    refused = load_candidate(candidate, workspace, None)
    assert refused == ["out/pipe.csv", "report.md"]
    assert not (workspace / "report.md").exists() and not (workspace / "out/pipe.csv").exists()
    assert stat.S_IMODE((workspace / "out/deep").lstat().st_mode) == 0


def _run(workspace: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    tests = out.parent / "tests"
    write_bundle(tests, _rubric(str(workspace)), workdir=str(workspace))
    workspace.mkdir(parents=True, exist_ok=True)
    command = verify_command(str(workspace), tests=str(tests), out=str(out))
    # -S: no site-packages at all, so batch mode provably needs nothing but the standard library.
    return subprocess.run([sys.executable, "-S", *command[1:], *extra], capture_output=True, text=True)


def _comparable(results: dict[str, Any]) -> list[dict[str, Any]]:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("duration_ms", "duration_s")}
        return [strip(v) for v in value] if isinstance(value, list) else value

    return [strip(item) for item in results["items"]]


def test_batch_mode_gives_each_candidate_the_single_modes_results(tmp_path: Path) -> None:
    candidates = _candidates(tmp_path / "built")
    batch = tmp_path / "batch"
    entries = stage(batch, list(_candidates(batch)))
    assert [(e["name"], e["copy"], e["refused"]) for e in entries] == [
        ("good", True, []), ("hostile", True, ["report.md", "out/pipe.csv"]), ("empty", False, [])]  # fmt: skip
    workspace, out = tmp_path / "workspace", tmp_path / "batch-run" / "verifier"
    completed = _run(workspace, out, "--batch", str(batch))
    assert completed.returncode == 0, completed.stderr
    assert "batch of 3 candidates, 3 verified" in completed.stdout
    assert not any(workspace.iterdir()), "the batch leaves the workspace empty"
    for name, candidate in candidates.items():
        _standard_load(candidate, workspace)  # the same path: rubric paths resolve alike
        single_out = tmp_path / f"single-{name}" / "verifier"
        single = _run(workspace, single_out)
        assert single.returncode == 0, single.stderr
        one = json.loads((single_out / "results.json").read_text())
        batched = json.loads((out / name / "results.json").read_text())
        assert batched["candidate"] == name and batched["status"] == "scored"
        assert _comparable(batched) == _comparable(one), name
        assert (batched["reward"], batched["counts"]) == (one["reward"], one["counts"]), name
        single_inputs = json.loads((single_out / "judge_inputs.json").read_text())
        assert json.loads((out / name / "judge_inputs.json").read_text()) == single_inputs, name
        assert json.loads((out / name / "reward.json").read_text()) == json.loads(
            (single_out / "reward.json").read_text()
        ), name
    good = json.loads((out / "good" / "results.json").read_text())
    assert good["counts"]["passed"] == 2, "relative and absolute rubric paths resolve in the real workspace path"
    remove_tree(batch)


STATEFUL = """
import builtins
def check(workspace, args):
    seen = getattr(builtins, "_probe_seen", 0)
    builtins._probe_seen = seen + 1
    return seen == 0
"""


def _python_batch(tmp_path: Path, source: str, names: list[str], *extra: str) -> tuple[str, str, Path]:
    """Run batch mode on candidates `names` with a one-item rubric whose check is `source`."""
    check = {"check": "python", "params": {"source": source}, "timeout_s": 60}
    rubric = Rubric.model_validate(
        {"items": [{"id": "it", "description": "it", "weight": 1.0, "method": "deterministic", "check": check}]}
    )
    batch = tmp_path / "batch"
    for name in names:
        (batch / name).mkdir(parents=True)
        (batch / name / "f.txt").write_text(name)
    stage(batch, names)
    tests, out, workspace = tmp_path / "tests", tmp_path / "logs" / "verifier", tmp_path / "workspace"
    write_bundle(tests, rubric, workdir=str(workspace))
    workspace.mkdir()
    command = [*verify_command(str(workspace), tests=str(tests), out=str(out))[1:], "--batch", str(batch), *extra]
    completed = subprocess.run([sys.executable, "-S", *command], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout, completed.stderr, out


STATEFUL = """
import builtins
def check(workspace, args):
    seen = getattr(builtins, "_probe_seen", 0)
    builtins._probe_seen = seen + 1
    return seen == 0
"""


def test_state_the_rubrics_own_python_leaves_in_the_process_never_reaches_the_next_candidate(tmp_path: Path) -> None:
    # A check that passes only in a process that never ran it: in the batch it passes for every candidate.
    _, _, out = _python_batch(tmp_path, STATEFUL, ["a", "b", "c"])
    for name in ("a", "b", "c"):
        assert json.loads((out / name / "results.json").read_text())["counts"]["passed"] == 1, name


def test_a_candidate_past_its_time_limit_is_killed_and_left_without_results(tmp_path: Path) -> None:
    slow = "import time\ndef check(workspace, args):\n    time.sleep(30)\n    return True\n"
    stdout, stderr, out = _python_batch(tmp_path, slow, ["a"], "--candidate-timeout", "0.5")
    assert "candidate a ran past 0.5 s" in stderr and "0 verified" in stdout
    assert not (out / "a" / "results.json").exists()


def test_late_candidates_are_verified_once_the_host_says_they_are_there(tmp_path: Path) -> None:
    batch, workspace, out = tmp_path / "batch", tmp_path / "workspace", tmp_path / "logs" / "verifier"
    (batch / "early").mkdir(parents=True)
    (batch / "early" / "report.md").write_text("Total: 81\n")
    stage(batch, ["early"], late=["late", "gone", "never"])
    tests = tmp_path / "tests"
    write_bundle(tests, _rubric(str(workspace)), workdir=str(workspace))
    workspace.mkdir()
    command = [*verify_command(str(workspace), tests=str(tests), out=str(out))[1:], "--batch", str(batch),
               "--wait-timeout", "1"]  # fmt: skip
    with subprocess.Popen([sys.executable, "-S", *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as running:  # fmt: skip
        (batch / "late" / "out").mkdir(parents=True)  # what the host copies in while the batch runs
        (batch / "late" / "out" / "table.csv").write_text("a\n1\n2\n3\n")
        (batch / "late.ready").write_text("copy")
        (batch / "gone.absent").write_text("")
        stdout, stderr = running.communicate(timeout=60)
    assert running.returncode == 0, stderr
    assert "batch of 4 candidates, 2 verified" in stdout
    assert "candidate gone did not come" in stderr and "candidate never did not come" in stderr
    assert json.loads((out / "early" / "results.json").read_text())["items"][0]["status"] == "passed"
    assert json.loads((out / "late" / "results.json").read_text())["items"][1]["status"] == "passed"
    assert not (out / "gone").exists() and not (out / "never").exists()


@pytest.mark.parametrize(
    "manifest",
    [
        {"candidates": [{"name": "../escape"}]},
        {"candidates": [{"name": "a"}, {"name": "a"}]},
        {"candidates": [{"name": ""}]},
        {"candidates": [{"name": "a.ready"}]},
        {"candidates": "a"},
        [],
    ],
)
def test_a_manifest_naming_anything_but_plain_distinct_folders_is_refused(manifest: Any, tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / BATCH_MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ValueError):
        read_manifest(batch)
    out = tmp_path / "run" / "verifier"
    completed = _run(tmp_path / "workspace", out, "--batch", str(batch))
    assert completed.returncode == 3 and "batch mode is not possible here" in completed.stderr
    assert not out.exists()


def test_a_loader_that_cannot_give_files_the_workspaces_owner_refuses_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    assert workspace_owner(workspace) is None  # this process creates files owned as the workspace is
    foreign = SimpleNamespace(st_uid=os.geteuid() + 1, st_gid=os.getegid() + 1)
    monkeypatch.setattr(Path, "stat", lambda self, **kw: foreign)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise PermissionError("no CAP_CHOWN")

    monkeypatch.setattr(os, "chown", refuse)
    with pytest.raises(BatchUnsupported):
        workspace_owner(workspace)
    assert not any(workspace.iterdir())


def _written(out: Path, items: list[dict[str, Any]], duration: float = 0.01) -> Path:
    out.mkdir(parents=True)
    results = {"status": "scored", "duration_s": duration, "items": items}
    (out / "results.json").write_text(json.dumps(results))
    (out / "judge_inputs.json").write_text(json.dumps({"tone": {"files": [], "missing": ["report.md"]}}))
    return out


def _item(item_id: str, status: str = "failed", error: str | None = None) -> dict[str, Any]:
    return {"id": item_id, "method": "deterministic", "weight": 0.5, "status": status,
            "q": 1.0 if status == "passed" else 0.0, "evidence": {"summary": "s"}, "error": error}  # fmt: skip


SANDBOX = SimpleNamespace(backend="bwrap", rollout_id="r1", mode="bwrap:image-rootfs")


def test_the_host_keeps_a_batch_verdict_as_verify_in_sandbox_builds_it(tmp_path: Path) -> None:
    out = _written(tmp_path / "c", [_item("report", "passed"), _item("table")])
    result = _result(RUBRIC, out, 60.0, "log", SANDBOX)  # type: ignore[arg-type]
    assert result is not None and result.status == "scored"
    assert [(r.item_id, r.status.value) for r in result.items] == [
        ("report", "passed"), ("table", "failed"), ("tone", "unscored")]  # fmt: skip
    assert result.rollout_id == "r1" and result.mode == "checks"


@pytest.mark.parametrize(
    "items, duration",
    [
        ([_item("report", error="the check ran past its 60 s limit"), _item("table")], 0.01),
        ([_item("report", error="the check raised MemoryError: "), _item("table")], 0.01),
        ([_item("report", "passed"), _item("table")], 61.0),
        ([_item("report", "passed")], 0.01),
        ([_item("report", "error"), _item("table")], 0.01),
    ],
    ids=["timeout", "memory", "slower-than-the-verifier-limit", "item-missing", "status-error"],
)
def test_a_verdict_that_depends_on_the_process_or_is_malformed_is_verified_again(
    items: list[dict[str, Any]], duration: float, tmp_path: Path
) -> None:
    out = _written(tmp_path / "c", items, duration)
    assert _result(RUBRIC, out, 60.0, "log", SANDBOX) is None  # type: ignore[arg-type]


def test_a_candidate_the_batch_did_not_reach_is_verified_again(tmp_path: Path) -> None:
    assert _result(RUBRIC, tmp_path / "never-written", 60.0, "log", SANDBOX) is None  # type: ignore[arg-type]
    out = tmp_path / "load-failed"
    out.mkdir()
    (out / "results.json").write_text(json.dumps({"status": "error", "error": "loading the candidate failed"}))
    (out / "judge_inputs.json").write_text("{}")
    assert _result(RUBRIC, out, 60.0, "log", SANDBOX) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_builders_never_change_a_hard_linked_input_in_place(kit_name: str, tmp_path: Path) -> None:
    kit = KITS[kit_name]
    draft = kit.build(0, SKILL, "office-documents", dict.fromkeys(kit.patterns, 2))
    initial = tmp_path / "initial"
    for relative, data in draft.workspace.items():
        (initial / relative).parent.mkdir(parents=True, exist_ok=True)
        (initial / relative).write_bytes(data)
    view = read_view(draft.instruction, initial, "/workspace")
    before = _snapshot(initial)
    for name, build in BUILDERS.items():
        candidate = tmp_path / "candidates" / name
        shutil.copytree(initial, candidate, symlinks=True, copy_function=os.link)
        build(candidate, view)
        assert _snapshot(initial) == before, name
    remove_tree(tmp_path / "candidates")


def _linked_copy(initial: Path, to: Path) -> Path:
    shutil.copytree(initial, to, symlinks=True, copy_function=os.link)
    return to


def test_equal_digests_are_candidates_that_load_as_equal_workspaces(tmp_path: Path) -> None:
    initial = tmp_path / "initial"
    (initial / "data").mkdir(parents=True)
    (initial / "data" / "a.csv").write_text("x,1\n")
    (initial / "notes.md").write_text("notes\n")
    plain = _linked_copy(initial, tmp_path / "plain")
    linked = _linked_copy(initial, tmp_path / "linked")
    (linked / "report.md").symlink_to("/etc/passwd")
    os.mkfifo(linked / "out.csv")
    same_text = [_linked_copy(initial, tmp_path / name) for name in ("text-1", "text-2")]
    for folder in same_text:
        (folder / "report.md").write_text("Total: 81\n")
        os.utime(folder / "report.md", ns=(1, 1))
    other_text = _linked_copy(initial, tmp_path / "other-text")
    (other_text / "report.md").write_text("Total: 82\n")
    os.utime(other_text / "report.md", ns=(1, 1))
    closed = _linked_copy(initial, tmp_path / "closed")
    (closed / "data").chmod(0o500)
    touched = _linked_copy(initial, tmp_path / "touched")
    (touched / "notes.md").unlink()
    shutil.copy2(initial / "notes.md", touched / "notes.md")  # the same bytes in a new inode: not matched
    digests = {path.name: workspace_digest(path) for path in [plain, linked, *same_text, other_text, closed, touched]}
    assert digests["plain"] == digests["linked"]
    assert digests["text-1"] == digests["text-2"]
    assert len({digests[name] for name in ("plain", "text-1", "other-text", "closed", "touched")}) == 5
    # What the digest calls equal, the verifier's loader makes equal (but the top folder's times).
    loaded = {}
    stage(tmp_path, ["plain", "linked"])
    for name in ("plain", "linked"):
        workspace = tmp_path / f"workspace-{name}"
        workspace.mkdir()
        load_candidate(tmp_path / name, workspace, None)
        loaded[name] = {path: entry[:3] + entry[4:] for path, entry in _snapshot(workspace).items() if path != "."}
    assert loaded["plain"] == loaded["linked"]


def test_a_workspace_that_cannot_be_read_whole_has_no_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root every folder can be listed: a listing that fails is what a closed folder gives another user.
    def fwalk(top: Path, onerror: Any = None, **kwargs: Any) -> Any:
        onerror(PermissionError(13, "Permission denied", str(top)))
        return iter(())

    monkeypatch.setattr(os, "fwalk", fwalk)
    with pytest.raises(PermissionError):
        workspace_digest(tmp_path)
