"""The solver's tools: their schemas, running them as commands, and truncating long observations."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

import pytest
from local_sandbox import LocalSandbox

from skill2env.agent.tools import AGENT_TOOLS, WRITE_CHUNK_BYTES, ToolRunner, truncate


@pytest.fixture
def sandbox() -> Iterator[LocalSandbox]:
    box = LocalSandbox()
    box.start()
    yield box
    box.stop()


@pytest.fixture
def runner(sandbox: LocalSandbox) -> ToolRunner:
    return ToolRunner(sandbox, observation_chars=2_000)


def test_the_five_tools_are_openai_function_schemas() -> None:
    specs = {tool.name: tool.spec() for tool in AGENT_TOOLS}

    assert list(specs) == ["bash", "read_file", "write_file", "list_dir", "finish"]
    assert all(spec["type"] == "function" for spec in specs.values())
    parameters = {name: spec["function"]["parameters"] for name, spec in specs.items()}
    assert parameters["bash"]["required"] == ["command"]
    assert set(parameters["bash"]["properties"]) == {"command", "timeout"}
    assert parameters["write_file"]["required"] == ["path", "content"]
    assert "required" not in parameters["list_dir"] and "required" not in parameters["finish"]
    assert all(p["additionalProperties"] is False for p in parameters.values())
    assert all(spec["function"]["description"] for spec in specs.values())


def test_short_text_is_not_truncated() -> None:
    assert truncate("hello\nworld\n", 100) == ("hello\nworld\n", False)


def test_long_text_keeps_head_and_tail_and_marks_the_cut() -> None:
    text = "".join(f"line {i:05d}\n" for i in range(10_000))  # 110,000 characters

    cut, truncated = truncate(text, 2_000)

    assert truncated
    assert cut.startswith("line 00000\n") and cut.endswith("line 09999\n")
    marker = re.search(r"\[\.\.\. (\d+) characters \((\d+) lines\) cut \.\.\.\]", cut)
    assert marker is not None
    removed, lines = int(marker.group(1)), int(marker.group(2))
    assert len(cut) - len(marker.group(0)) - 2 + removed == len(text)
    assert lines == text.count("\n") - cut.count("\n") + 2
    assert 1_800 <= len(cut) <= 2_100
    head, tail = cut.split(marker.group(0))
    assert head.endswith("\n") and all(re.fullmatch(r"line \d{5}", row) for row in (head + tail).splitlines() if row)


def test_a_single_huge_line_is_cut_in_the_middle() -> None:
    cut, truncated = truncate("x" * 50_000 + "END", 1_000)

    assert truncated and cut.startswith("xxx") and cut.endswith("xEND")
    assert "49003 characters (0 lines) cut" in cut


def test_bash_returns_output_and_exit_code(runner: ToolRunner) -> None:
    ok = runner.run("bash", {"command": "echo hello; echo oops >&2"})
    failed = runner.run("bash", {"command": "exit 3"})

    assert ok.content == "hello\n[stderr]\noops\n[exit code 0]"
    assert (ok.exit_code, ok.is_error, ok.finished) == (0, False, False)
    assert failed.content == "(no output)\n[exit code 3]"
    assert failed.exit_code == 3 and not failed.is_error  # a failing command is a result, not a failed call


def test_a_command_past_its_timeout_is_killed_and_said_so(runner: ToolRunner) -> None:
    outcome = runner.run("bash", {"command": "echo started; sleep 5", "timeout": 0.3})

    assert outcome.is_error
    assert "ran past its 0.3 s timeout and was killed" in outcome.content
    assert outcome.duration_s < 3


def test_the_agents_remaining_time_caps_a_command(runner: ToolRunner) -> None:
    outcome = runner.run("bash", {"command": "sleep 5", "timeout": 60}, time_left=0.3)

    assert outcome.is_error and "0.3 s timeout" in outcome.content


def test_long_output_is_truncated_head_and_tail(runner: ToolRunner) -> None:
    outcome = runner.run("bash", {"command": "seq 1 100000"})

    assert outcome.truncated
    assert outcome.content.startswith("1\n2\n3\n")
    assert outcome.content.endswith("99999\n100000\n[exit code 0]")
    assert "characters (" in outcome.content and len(outcome.content) < 2_200


def test_write_then_read_and_list(runner: ToolRunner, sandbox: LocalSandbox) -> None:
    content = 'héllo\n$HOME `x` "q"\n'
    written = runner.run("write_file", {"path": "out/deep/result.txt", "content": content})
    read = runner.run("read_file", {"path": "out/deep/result.txt"})
    listed = runner.run("list_dir", {"path": "out/deep"})

    assert written.content == f"wrote {len(content.encode())} bytes to out/deep/result.txt" and not written.is_error
    assert read.content == content
    assert "result.txt" in listed.content
    assert (sandbox.host_workspace / "out/deep/result.txt").read_text() == content


def test_a_large_file_is_written_in_chunks(runner: ToolRunner, sandbox: LocalSandbox) -> None:
    content = "".join(f"{i}\n" for i in range(60_000))
    assert len(content) > 2 * WRITE_CHUNK_BYTES

    runner.run("write_file", {"path": "big.txt", "content": content})

    assert (sandbox.host_workspace / "big.txt").read_text() == content
    writes = [c for c in sandbox.commands if isinstance(c, list) and "write_file" in c]
    assert len(writes) == math.ceil(len(content) / WRITE_CHUNK_BYTES) == 6


def test_an_empty_file_can_be_written(runner: ToolRunner, sandbox: LocalSandbox) -> None:
    runner.run("write_file", {"path": "empty.txt", "content": ""})

    assert (sandbox.host_workspace / "empty.txt").read_bytes() == b""


def test_missing_paths_are_error_observations(runner: ToolRunner) -> None:
    read = runner.run("read_file", {"path": "nope.txt"})
    listed = runner.run("list_dir", {"path": "nowhere"})

    assert read.is_error and read.content.startswith("error: reading nope.txt failed:")
    assert "No such file" in read.content
    assert listed.is_error and listed.content.startswith("error: listing nowhere failed:")


def test_invalid_arguments_and_unknown_tools_are_error_observations(runner: ToolRunner, sandbox: LocalSandbox) -> None:
    missing = runner.run("bash", {"cmd": "ls"})
    wrong_type = runner.run("bash", {"command": "ls", "timeout": "soon"})
    unknown = runner.run("browse", {"url": "x"})

    assert missing.is_error and "command: Field required" in missing.content and "cmd: Extra inputs" in missing.content
    assert wrong_type.is_error and "timeout:" in wrong_type.content
    assert unknown.is_error and "unknown tool 'browse'" in unknown.content
    assert sandbox.commands == []


def test_finish_ends_with_its_message(runner: ToolRunner) -> None:
    outcome = runner.run("finish", {"message": "all done"})
    bare = runner.run("finish", {})

    assert (outcome.finished, outcome.content, outcome.is_error) == (True, "all done", False)
    assert bare.finished and bare.content == "finished"
