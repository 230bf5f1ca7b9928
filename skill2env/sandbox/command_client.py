"""The host's side of a sandbox's command server (`command_server`): requests out, replies in.

A reader thread takes the server's replies off its stdout and hands each to the call waiting for
it, so several commands can run at once. When the server dies or stops answering, every waiting
call and every later one raises `CommandServerLost`; the backend asks its sandbox why (inside the
sandbox or outside it) before it reports the failure.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from skill2env.sandbox.base import ExecResult, describe, shell_command
from skill2env.sandbox.errors import (
    CommandServerLost,
    SandboxBroken,
    SandboxCrashed,
    SandboxDeadlineExceeded,
    SandboxError,
    SandboxTimeout,
)

SERVER_SOURCE = (Path(__file__).parent / "command_server.py").read_text()
READY_TIMEOUT_S = 30.0
REPLY_SLACK_S = 30.0
"""A reply may come this long after the command's timeout and kill grace before the server counts as hung."""
STOP_WAIT_S = 5.0


BOOTSTRAP = "import json, sys; exec(json.loads(sys.stdin.buffer.readline()))"
"""The server's command line: its source comes as the first line on stdin (a short `ps` entry)."""


def exec_result(reply: CommandReply, cmd: str | Sequence[str], *, started: float, limit: float, timeout: float,
                rollout_id: str) -> ExecResult:  # fmt: skip
    """A server's reply as the sandbox's `ExecResult`; a command that ran out of time raises: out of
    the rollout's wall clock (`limit` < `timeout`) or out of its own `timeout`."""
    result = ExecResult(
        exit_code=reply.exit_code,
        stdout=reply.stdout,
        stderr=reply.stderr,
        duration_s=time.monotonic() - started,
        timed_out=reply.timed_out,
        output_truncated=reply.truncated,
    )
    if reply.timed_out:
        if limit < timeout:
            raise SandboxDeadlineExceeded(f"rollout {rollout_id} ran out of its wall clock")
        raise SandboxTimeout(f"{describe(cmd)!r} ran past its {timeout:g} s timeout", result)
    return result


def run_command(client: CommandClient, cmd: str | Sequence[str], *, cwd: str, env: Mapping[str, str] | None,
                limit: float, timeout: float, reply_within: float, rollout_id: str) -> ExecResult:  # fmt: skip
    """`cmd` run by a sandbox's command server, within `limit` seconds (the command's `timeout` or what is
    left of the rollout's wall clock), as the sandbox's `ExecResult` (see `exec_result` for what raises).

    Raises:
        CommandServerLost: the server ended or stopped answering; the backend says whose doing that is.
    """
    started = time.monotonic()
    reply = client.run(shell_command(cmd), cwd=cwd, env=env, timeout=limit, reply_within=reply_within)
    return exec_result(reply, cmd, started=started, limit=limit, timeout=timeout, rollout_id=rollout_id)


OUTSIDE_SIGNALS = frozenset(
    {signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
     signal.SIGALRM}
)  # fmt: skip
"""Signals that can end the server, a pid namespace's init without handlers, only when sent from
outside its namespace (the kernel drops them from inside, and generates none of them for what a
process did) — except SIGKILL from the OOM killer, which the caller tells apart."""


def server_end(lost: CommandServerLost, exit_status: int, *, oom_killed: bool, detail: str = "") -> SandboxError:
    """Why a command server that ended with `exit_status` (its process's: 128 + n for signal n) is
    gone: the sandbox's own doing (`SandboxBroken`) or a fault outside it (`SandboxCrashed`).

    The OOM killer under the sandbox's own memory limit (`oom_killed`) and the signals the kernel
    sends a process for what it met inside (SIGSEGV, SIGBUS, SIGXCPU, ...) are the sandbox's; a
    signal only something outside can send (`OUTSIDE_SIGNALS`) and an exit of the server's own
    (its stdin closed by the engine or us, or a fault of ours) are not."""
    extra = f": {detail}" if detail else ""
    if oom_killed:
        return SandboxBroken(f"{lost}; the sandbox ran out of memory and the OOM killer ended its command server")
    if exit_status > 128 and (name := _signal_name(exit_status - 128)) is not None:
        if exit_status - 128 in OUTSIDE_SIGNALS:
            return SandboxCrashed(f"{lost}; {name} from outside the sandbox ended its command server{extra}")
        return SandboxBroken(
            f"{lost}; the command server died of {name}, sent by the kernel for what ran in the sandbox"
        )
    return SandboxCrashed(f"{lost}; the command server exited with status {exit_status}{extra}")


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


HARDENING_FAILED = "command server: hardening failed"
"""What the server says on stderr when `require_hardening` made it exit before greeting."""


def server_argv(python: str, config: Mapping[str, Any]) -> list[str]:
    """How to start the server under the sandbox's `python` (isolated mode: no site, no user paths)."""
    return [python, "-I", "-S", "-c", BOOTSTRAP, json.dumps(dict(config))]


@dataclass(frozen=True)
class CommandReply:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    truncated: bool


class CommandClient:
    """Talks to one running server over its stdin / stdout."""

    def __init__(self, requests: IO[bytes], replies: IO[bytes], *, describe: str) -> None:
        self._requests = requests
        self._replies = replies
        self._describe = describe
        self._ids = itertools.count(1)
        self._waiting: dict[int, queue.SimpleQueue[dict[str, Any] | None]] = {}
        self._lock = threading.Lock()
        self._ready: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._gone: str | None = None
        try:
            requests.write(json.dumps(SERVER_SOURCE).encode() + b"\n")
            requests.flush()
        except OSError as exc:
            self._gone = f"it did not take its source: {exc}"
        self._reader = threading.Thread(target=self._read_replies, name=f"{describe}-replies", daemon=True)
        self._reader.start()

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Raises: SandboxCrashed: the server did not come up."""
        try:
            greeting = self._ready.get(timeout=timeout)
        except queue.Empty:
            raise SandboxCrashed(f"the {self._describe} did not start within {timeout:g} s") from None
        if greeting is None or not greeting.get("ready"):
            raise SandboxCrashed(f"the {self._describe} did not start: {self._gone or greeting}")

    @property
    def alive(self) -> bool:
        return self._gone is None

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str,
        env: Mapping[str, str] | None,
        timeout: float,
        reply_within: float,
    ) -> CommandReply:
        """Run one command.

        Raises:
            CommandServerLost: the server died or stopped answering.
            SandboxCrashed: it answered that it could not run the command (a fault of ours).
        """
        request = {"argv": list(argv), "cwd": cwd, "env": dict(env or {}), "timeout": timeout}
        reply = self._ask(request, reply_within, f"{argv[:3]!r}")
        if "error" in reply:
            raise SandboxCrashed(f"the {self._describe} failed to run {argv[:3]!r}: {reply['error']}")
        return CommandReply(
            exit_code=int(reply["exit_code"]),
            stdout=base64.b64decode(reply["stdout"]).decode(errors="replace"),
            stderr=base64.b64decode(reply["stderr"]).decode(errors="replace"),
            timed_out=bool(reply["timed_out"]),
            truncated=bool(reply["truncated"]),
        )

    def end_all(self, reply_within: float) -> None:
        """Have the server kill every process but itself, and return once none is left.

        Raises:
            CommandServerLost: the server died or stopped answering.
            SandboxCrashed: it answered that it could not.
        """
        reply = self._ask({"end_all": True}, reply_within, "ending every process")
        if not reply.get("ended"):
            raise SandboxCrashed(f"the {self._describe} could not end every process: {reply.get('error', reply)}")

    def _ask(self, request: dict[str, Any], reply_within: float, what: str) -> dict[str, Any]:
        """Send one request and wait for its reply (see `run` for what it raises)."""
        slot: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        request_id = next(self._ids)
        request = {"id": request_id, **request}
        with self._lock:
            if self._gone is not None:
                raise CommandServerLost(f"the {self._describe} is gone: {self._gone}", unresponsive=False)
            self._waiting[request_id] = slot
            try:
                self._requests.write(json.dumps(request).encode() + b"\n")
                self._requests.flush()
            except (OSError, ValueError) as exc:
                self._waiting.pop(request_id, None)
                message = f"the {self._describe} does not take requests: {exc}"
                raise CommandServerLost(message, unresponsive=False) from exc
        try:
            reply = slot.get(timeout=reply_within + REPLY_SLACK_S)
        except queue.Empty:
            message = f"the {self._describe} did not answer {what}"
            raise CommandServerLost(message, unresponsive=True) from None
        finally:
            with self._lock:
                self._waiting.pop(request_id, None)
        if reply is None:
            raise CommandServerLost(f"the {self._describe} died under {what}: {self._gone}", unresponsive=False)
        return reply

    def close(self) -> None:
        """Close the server's stdin: it exits, and with it everything it started."""
        with self._lock:
            if self._gone is None:
                self._gone = "closed"
            with contextlib.suppress(OSError):
                self._requests.close()

    def _read_replies(self) -> None:
        reason = "its output ended (it exited or was killed)"
        try:
            for line in self._replies:
                message = json.loads(line)
                if "ready" in message:
                    self._ready.put(message)
                    continue
                with self._lock:
                    slot = self._waiting.get(message.get("id"))
                if slot is not None:
                    slot.put(message)
        except (OSError, ValueError) as exc:
            reason = f"reading its replies failed: {exc}"
        with self._lock:
            self._gone = self._gone or reason
            waiting, self._waiting = list(self._waiting.values()), {}
        self._ready.put(None)
        for slot in waiting:
            slot.put(None)


def popen_from_lasting_thread(argv: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen`, forked by a thread that lives as long as this process: a child asking to
    die with its parent (`bwrap --die-with-parent`, PR_SET_PDEATHSIG) dies with the thread that
    forked it, and the caller's may be a pool worker that ends before the sandbox does."""
    done: queue.SimpleQueue[subprocess.Popen[bytes] | BaseException] = queue.SimpleQueue()
    _spawner().put(lambda: done.put(_popen(argv, options)))
    outcome = done.get()
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def _popen(argv: Sequence[str], options: dict[str, Any]) -> subprocess.Popen[bytes] | BaseException:
    try:
        return subprocess.Popen(list(argv), **options)
    except BaseException as exc:  # handed to the caller's thread
        return exc


_spawn_queue: queue.SimpleQueue[Callable[[], None]] | None = None
_spawn_guard = threading.Lock()


def _spawner() -> queue.SimpleQueue[Callable[[], None]]:
    global _spawn_queue
    with _spawn_guard:
        if _spawn_queue is None:
            jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

            def work() -> None:
                while True:
                    jobs.get()()

            threading.Thread(target=work, name="sandbox-spawner", daemon=True).start()
            _spawn_queue = jobs
        return _spawn_queue


class CommandServer:
    """A running server process (its stdin / stdout piped to us) and the client talking to it."""

    def __init__(self, process: subprocess.Popen[bytes], *, describe: str) -> None:
        if process.stdin is None or process.stdout is None:
            raise SandboxCrashed(f"the {describe} was started without pipes")
        self.process = process
        self.client = CommandClient(process.stdin, process.stdout, describe=describe)

    def stop(self, wait_s: float = STOP_WAIT_S) -> None:
        """End the server and everything it started; kill it if it does not exit within `wait_s`."""
        self.client.close()
        try:
            self.process.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
