"""What a judge reads: target files, size-capped with the cut marked, binary files named not shown,
links out of the workspace refused, and a listing of the workspace."""

from __future__ import annotations

from pathlib import Path

from rubric_helpers import Put

from skill2env.rubric.checks import judge_inputs


def test_targets_are_read_with_globs_and_directories(ws: Path, put: Put) -> None:
    put("output/report.md", "# Report\n")
    put("output/notes/a.txt", "a")
    put("output/notes/b.txt", "b")

    inputs = judge_inputs(ws, ["output/report.md", "output/notes", "output/*.pdf"])

    assert [f["path"] for f in inputs["files"]] == ["output/report.md", "output/notes/a.txt", "output/notes/b.txt"]
    assert inputs["files"][0]["text"] == "# Report\n" and inputs["files"][0]["truncated"] is False
    assert inputs["missing"] == ["output/*.pdf"]
    assert "output/report.md (9 bytes)" in inputs["listing"]


def test_a_long_file_is_cut_and_the_cut_is_marked(ws: Path, put: Put) -> None:
    put("big.md", "x" * 10_000)

    entry = judge_inputs(ws, ["big.md"], file_chars=1000)["files"][0]

    assert entry["truncated"] is True and entry["bytes"] == 10_000
    assert entry["text"].startswith("x" * 1000)
    assert "[… cut by the verifier: 9000 more characters not shown …]" in entry["text"]


def test_the_item_budget_is_shared_by_its_files(ws: Path, put: Put) -> None:
    put("a.md", "a" * 800)
    put("b.md", "b" * 800)
    put("c.md", "c" * 800)

    files = judge_inputs(ws, ["*.md"], file_chars=1000, item_chars=1500)["files"]

    assert files[0]["truncated"] is False
    assert files[1]["truncated"] is True and files[1]["text"].startswith("b" * 700)
    assert files[2]["omitted"] is True and files[2]["text"] == ""


def test_binary_files_and_links_out_of_the_workspace(ws: Path, tmp_path: Path, put: Put) -> None:
    put("chart.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    secret = tmp_path / "expected.txt"
    secret.write_text("the expected answer")
    (ws / "answer.md").symlink_to(secret)

    inputs = judge_inputs(ws, ["chart.png", "answer.md"])

    assert inputs["files"] == [{"path": "chart.png", "bytes": 16, "binary": True, "text": "", "truncated": False}]
    assert inputs["missing"] == ["answer.md"]
    assert all("answer.md" not in line for line in inputs["listing"])
