"""The command server: one long-lived process inside a sandbox that runs its commands.

Started with the sandbox (`python3 -I -S -c <this file's source> <config>`), it reads requests
on stdin and answers on stdout, one JSON object per line, so a command costs a fork and an exec
inside the sandbox instead of new namespaces (bwrap) or an engine round trip (docker). Commands
run with the server's namespaces and limits, each in its own session and process group:

    → {"id": 1, "argv": ["bash", "-c", "ls"], "cwd": "/workspace", "env": {}, "timeout": 60}
    ← {"id": 1, "exit_code": 0, "stdout": "<base64>", "stderr": "<base64>", "timed_out": false,
       "truncated": false}

Config (argv[1], JSON): `env` (every command's base environment), `output_limit` (bytes kept per
stream), `kill_grace` (seconds between SIGTERM and SIGKILL at a timeout; 0: SIGKILL at once),
`sweep` (after each command, kill every process no running command started: a command's
background processes end with it, as they did when each command had its own pid namespace).

The server is meant to be the pid namespace's init: signals from inside the namespace cannot
kill it, orphans are reparented to it (and reaped here), and when it exits the kernel kills
every process left in the namespace. It exits when stdin closes. Standard library only: it runs
under the sandbox's own python3.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

READY = {"ready": True}
SPAWN_FAILED_EXIT_CODES = {2: 127, 13: 126}
"""errno → the shell's exit code for a command that could not be started (not found / not executable)."""
SWEEP_ROUNDS = 50
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
POLL_S = 0.05
"""How often a running command's exit and deadline are checked while it is quiet."""
LINGER_S = 1.0
"""How long output is still read after the leader ended, from what it left running."""
KILL_WAIT_S = 5.0


class Children:
    """Reaps every child (commands and reparented orphans) and keeps command leaders' exit codes."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.spawns = 0
        self.exited: dict[int, int] = {}
        self.leaders: set[int] = set()

    def reap_forever(self) -> None:
        seen = 0
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                with self.lock:
                    while self.spawns == seen:
                        self.lock.wait()
                    seen = self.spawns
                continue
            with self.lock:
                if pid in self.leaders:
                    self.exited[pid] = os.waitstatus_to_exitcode(status)
                    self.lock.notify_all()

    def spawned(self, pid: int) -> None:
        with self.lock:
            self.leaders.add(pid)
            self.spawns += 1
            self.lock.notify_all()

    def exit_code(self, pid: int, timeout: float | None = None) -> int | None:
        """The leader's exit code once it has ended (None if it has not within `timeout`)."""
        with self.lock:
            self.lock.wait_for(lambda: pid in self.exited, timeout)
            return self.exited.get(pid)

    def forget(self, pid: int) -> None:
        with self.lock:
            self.leaders.discard(pid)
            self.exited.pop(pid, None)

    def live_leaders(self) -> set[int]:
        with self.lock:
            return self.leaders - set(self.exited)


class Server:
    def __init__(self, config: dict) -> None:
        self.env = dict(config.get("env") or {})
        self.output_limit = int(config.get("output_limit", 1 << 20))
        self.kill_grace = float(config.get("kill_grace", 0))
        self.sweep_after = bool(config.get("sweep", False))
        self.children = Children()
        self.write_lock = threading.Lock()
        self.sweep_lock = threading.Lock()

    def serve(self) -> None:
        threading.Thread(target=self.children.reap_forever, daemon=True).start()
        self.send(READY)
        for line in sys.stdin.buffer:
            request = json.loads(line)
            threading.Thread(target=self.answer, args=(request,), daemon=True).start()

    def send(self, message: dict) -> None:
        data = json.dumps(message).encode() + b"\n"
        with self.write_lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def answer(self, request: dict) -> None:
        try:
            reply = self.run(request)
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        reply["id"] = request.get("id")
        self.send(reply)

    def run(self, request: dict) -> dict:
        env = {**self.env, **(request.get("env") or {})}
        try:
            process = subprocess.Popen(
                request["argv"],
                cwd=request.get("cwd") or None,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            message = f"skill2env: cannot run {request['argv'][0]!r}: {exc.strerror or exc}\n"
            return _reply(SPAWN_FAILED_EXIT_CODES.get(exc.errno or 0, 126), b"", message.encode(), False, False)
        self.children.spawned(process.pid)
        try:
            deadline = time.monotonic() + float(request["timeout"])
            stdout, stderr, truncated, exit_code, timed_out = self.collect(process, deadline)
        finally:
            process.returncode = 0  # reaped here; Popen must never wait for a pid that may be reused
            self.children.forget(process.pid)
            if self.sweep_after:
                self.sweep()
        return _reply(exit_code, stdout, stderr, truncated, timed_out)

    def collect(self, process: subprocess.Popen, deadline: float) -> tuple[bytes, bytes, bool, int, bool]:
        """Read both streams until they close, killing the group at the deadline. Returns
        (stdout, stderr, truncated, exit code, timed out); a timeout exits 124 (SIGTERM sufficed) or
        137 (SIGKILL was needed), as `timeout -k` does."""
        assert process.stdout is not None and process.stderr is not None
        out, err = process.stdout.fileno(), process.stderr.fileno()
        kept = {out: bytearray(), err: bytearray()}
        selector = selectors.DefaultSelector()
        for fd in kept:
            selector.register(fd, selectors.EVENT_READ)
        truncated = timed_out = escalated = False
        exit_code: int | None = None
        ended_at = 0.0
        while selector.get_map():
            now = time.monotonic()
            if exit_code is None:
                exit_code = self.children.exit_code(process.pid, 0)
                if exit_code is not None:
                    ended_at = now
                    if self.sweep_after:  # what it left running ends with it
                        _signal_group(process.pid, signal.SIGKILL)
                        self.sweep()
            elif now - ended_at > LINGER_S:
                break  # the leader is gone; a background process keeps its streams open
            if exit_code is None and now >= deadline and not timed_out:
                timed_out = True
                escalated = self.kill_grace <= 0
                _signal_group(process.pid, signal.SIGKILL if escalated else signal.SIGTERM)
            elif timed_out and not escalated and now >= deadline + self.kill_grace:
                escalated = True
                _signal_group(process.pid, signal.SIGKILL)
            wake = POLL_S if timed_out or exit_code is not None else min(POLL_S, max(0.0, deadline - now))
            events = selector.select(timeout=wake)
            if not events and exit_code is not None:
                break
            for key, _ in events:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                    continue
                room = self.output_limit - len(kept[key.fd])
                truncated = truncated or len(chunk) > room
                if room > 0:
                    kept[key.fd] += chunk[:room]
        selector.close()
        process.stdout.close()
        process.stderr.close()
        if exit_code is None and not timed_out:  # it closed its streams but runs on: wait until the deadline
            exit_code = self.children.exit_code(process.pid, max(0.0, deadline - time.monotonic()))
            if exit_code is None:
                timed_out = True
                escalated = self.kill_grace <= 0
                _signal_group(process.pid, signal.SIGKILL if escalated else signal.SIGTERM)
        if exit_code is None and timed_out:
            if not escalated and self.children.exit_code(process.pid, self.kill_grace) is None:
                escalated = True
                _signal_group(process.pid, signal.SIGKILL)
            self.children.exit_code(process.pid, KILL_WAIT_S)
        if timed_out:
            exit_code = 137 if escalated else 124
        elif exit_code is not None and exit_code < 0:
            exit_code = 128 - exit_code
        return bytes(kept[out]), bytes(kept[err]), truncated, int(exit_code or 0), timed_out

    def shutdown(self) -> None:
        """Kill everything the server started (as the namespace's init, its exit would do it too)."""
        for leader in self.children.live_leaders():
            _signal_group(leader, signal.SIGKILL)
        self.sweep(keep_running=False)

    def sweep(self, *, keep_running: bool = True) -> None:
        """Kill every process below this server that is not part of a running command."""
        with self.sweep_lock:
            for _ in range(SWEEP_ROUNDS):
                parents = _parents()
                running = self.children.live_leaders() if keep_running else set()
                keep = {os.getpid()} | _descendants(parents, running)
                strays = [pid for pid in parents if pid not in keep and _is_below(pid, os.getpid(), parents)]
                if not strays:
                    return
                for pid in strays:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.001)


def _reply(exit_code: int, stdout: bytes, stderr: bytes, truncated: bool, timed_out: bool) -> dict:
    return {
        "exit_code": exit_code,
        "stdout": base64.b64encode(stdout).decode(),
        "stderr": base64.b64encode(stderr).decode(),
        "truncated": truncated,
        "timed_out": timed_out,
    }


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _parents() -> dict[int, int]:
    """pid → parent pid of every process this /proc shows."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in ("Z", "X"):
            parents[int(entry.name)] = int(fields[1])
    return parents


def _descendants(parents: dict[int, int], roots: set[int]) -> set[int]:
    found = set(roots)
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in found and pid not in found:
                found.add(pid)
                changed = True
    return found


def _is_below(pid: int, ancestor: int, parents: dict[int, int]) -> bool:
    seen = set()
    while pid in parents and pid not in seen:
        seen.add(pid)
        pid = parents[pid]
        if pid == ancestor:
            return True
    return False


def _harden() -> None:
    """Non-dumpable: commands run as the same user, and could otherwise ptrace the server or open
    its pipes through /proc. A child subreaper: orphaned processes come to the server to be reaped
    and swept even where it is not the namespace's init."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def main() -> None:
    config = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    _harden()
    threading.stack_size(512 * 1024)  # threads count against RLIMIT_AS like the commands' memory
    server = Server(config)
    with contextlib.suppress(BrokenPipeError):
        server.serve()
    server.shutdown()
    os._exit(0)


if __name__ == "__main__":
    main()
