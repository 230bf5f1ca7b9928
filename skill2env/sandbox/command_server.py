"""The command server: one long-lived process inside a sandbox that runs its commands.

Started with the sandbox (`python3 -I -S -c <this file's source> <config>`), it reads requests
on stdin and answers on stdout, one JSON object per line, so a command costs a fork and an exec
inside the sandbox instead of new namespaces (bwrap) or an engine round trip (docker). Commands
run with the server's namespaces and limits, each in its own session and process group:

    → {"id": 1, "argv": ["bash", "-c", "ls"], "cwd": "/workspace", "env": {}, "timeout": 60}
    ← {"id": 1, "exit_code": 0, "stdout": "<base64>", "stderr": "<base64>", "timed_out": false,
       "truncated": false}
    → {"id": 2, "end_all": true}       (kill every process but the server, until none is left)
    ← {"id": 2, "ended": true}

Config (argv[1], JSON): `env` (every command's base environment), `inherit_env` (start that
environment from the server's own), `output_limit` (bytes kept per stream), `kill_grace` (seconds
between SIGTERM and SIGKILL at a timeout; 0: SIGKILL at once), `sweep` (after each command, kill
every process no running command started: a command's background processes end with it, as they
did when each command had its own pid namespace), `deadline_s` (end the server, and everything it
started, this many seconds after it started: the sandbox's wall clock, kept even when nobody
closes stdin), `require_hardening` (exit before greeting unless `_harden` fully succeeded),
`child_oom_score_adj` (every command's OOM score adjustment; default 1000).

The server is meant to be the pid namespace's init: signals from inside the namespace cannot
kill it (the kernel drops every signal to a namespace's init for which it has no handler, and it
installs none: Python's SIGINT handler is removed), orphans are reparented to it (and reaped
here), and when it exits the kernel kills every process left in the namespace. Commands run as
its uid, so it is made non-dumpable (no ptrace, no /proc/1/fd, no writing its /proc/1/oom_score_adj)
and denies them changing another process's limits or scheduling (`prlimit`: a hard RLIMIT_CPU set
on it would make the kernel SIGKILL it; `setpriority`, `sched_setscheduler`, `sched_setattr`,
`sched_setparam`, `sched_setaffinity`, `ioprio_set`: they would starve it). Each command starts with
an OOM score adjustment of 1000 (`child_oom_score_adj`), so under memory pressure the OOM killer
takes the agent's processes before the server. That is a default, not a wall: the kernel lets an
unprivileged process lower its own adjustment back to the lowest a privileged writer gave it (the
server's own, 0), and the server cannot go below that without CAP_SYS_RESOURCE; an agent that does
so and then exhausts memory can still get the server killed, which the backends then record as the
attempt's own failure (`SandboxBroken`), not the infrastructure's. It exits when stdin closes.
Standard library only: it runs under the sandbox's own python3.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import platform
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

READY = {"ready": True}
SPAWN_FAILED_EXIT_CODES = {2: 127, 13: 126}
"""errno → the shell's exit code for a command that could not be started (not found / not executable)."""
SWEEP_ROUNDS = 50
END_ALL_S = 5.0
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_EPERM = 0x00050000 | 1
X32_SYSCALL_BIT = 0x40000000
TARGET, PRIORITY, IO_PRIORITY = "target", "priority", "io_priority"
"""How a guarded call names the process it acts on: its pid (first argument; 0 is the caller), or
(which, who) where who 0 with a `which` other than "every process of this user" is the caller's own."""
PRIO_USER, IOPRIO_WHO_USER = 2, 3
GUARDED_CALLS = {  # machine → (audit arch, {syscall number: kind}) for every ABI its processes can use
    "x86_64": (
        (0xC000003E, {302: TARGET, 142: TARGET, 144: TARGET, 203: TARGET, 314: TARGET, 141: PRIORITY,
                      251: IO_PRIORITY}),
        (0x40000003, {340: TARGET, 154: TARGET, 156: TARGET, 241: TARGET, 351: TARGET, 97: PRIORITY,
                      289: IO_PRIORITY}),
    ),
    "aarch64": (
        (0xC00000B7, {261: TARGET, 118: TARGET, 119: TARGET, 122: TARGET, 274: TARGET, 140: PRIORITY,
                      30: IO_PRIORITY}),
        (0x40000028, {369: TARGET, 154: TARGET, 156: TARGET, 241: TARGET, 380: TARGET, 97: PRIORITY,
                      314: IO_PRIORITY}),
    ),
}  # fmt: skip
"""prlimit64, sched_setparam, sched_setscheduler, sched_setaffinity, sched_setattr, setpriority,
ioprio_set: refused (EPERM) on any process but the caller. x86_64's x32 ABI uses its numbers with
X32_SYSCALL_BIT set."""
CHILD_OOM_SCORE_ADJ = 1000
"""Every command's OOM score adjustment: the OOM killer takes the agent's processes before the server."""
POLL_S = 0.05
"""How often a running command's exit and deadline are checked while it is quiet."""
LINGER_S = 1.0
"""How long output is still read after the leader ended, from what it left running."""
KILL_WAIT_S = 5.0
OOM_SCORE_WRITE_S = 0.05
"""How long a command's OOM score adjustment is retried while its exec completes."""


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

    def spawning(self) -> threading.Condition:
        """Hold while starting a command and until `spawned`: the reaper may reap it at once (a quick
        command, a loaded machine), and must not look it up among the leaders before it is one."""
        return self.lock

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
        self.env = {**(os.environ if config.get("inherit_env") else {}), **(config.get("env") or {})}
        self.deadline_s = config.get("deadline_s")
        self.output_limit = int(config.get("output_limit", 1 << 20))
        self.kill_grace = float(config.get("kill_grace", 0))
        self.sweep_after = bool(config.get("sweep", False))
        self.child_oom_score_adj = int(config.get("child_oom_score_adj", CHILD_OOM_SCORE_ADJ))
        self.children = Children()
        self.write_lock = threading.Lock()
        self.sweep_lock = threading.Lock()

    def serve(self) -> None:
        threading.Thread(target=self.children.reap_forever, daemon=True).start()
        if self.deadline_s is not None:
            threading.Thread(target=self.end_at_deadline, args=(float(self.deadline_s),), daemon=True).start()
        self.send(READY)
        for line in sys.stdin.buffer:
            request = json.loads(line)
            try:
                threading.Thread(target=self.answer, args=(request,), daemon=True).start()
            except RuntimeError as exc:  # no thread to be had (a fork bomb at the pids limit): refuse, live on
                message = f"skill2env: cannot run {request.get('argv', ['?'])[0]!r}: {exc}\n"
                self.send({**_reply(126, b"", message.encode(), False, False), "id": request.get("id")})

    def end_at_deadline(self, seconds: float) -> None:
        """The wall clock: at the deadline, kill everything and exit (as init, the namespace with it)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(min(left, 60.0))
        try:
            self.shutdown()
        finally:
            os._exit(0)

    def send(self, message: dict) -> None:
        data = json.dumps(message).encode() + b"\n"
        with self.write_lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def answer(self, request: dict) -> None:
        try:
            reply = self.end_all() if request.get("end_all") else self.run(request)
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        reply["id"] = request.get("id")
        self.send(reply)

    def run(self, request: dict) -> dict:
        env = {**self.env, **(request.get("env") or {})}
        with self.children.spawning():
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
        _set_oom_score_adj(process.pid, self.child_oom_score_adj)
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

    def end_all(self) -> dict:
        """Kill every process but this server, and wait until the last is reaped (the sandbox's end:
        nothing of the agent's runs while its workspace is read)."""
        deadline = time.monotonic() + END_ALL_S
        while time.monotonic() < deadline:
            self.shutdown()
            parents = _parents()
            if not any(_is_below(pid, os.getpid(), parents) for pid in parents if pid != os.getpid()):
                return {"ended": True}
        return {"error": f"processes were still left after {END_ALL_S:g} s"}

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


def _set_oom_score_adj(pid: int, value: int) -> None:
    """Set a command's OOM score adjustment, just after its exec: what it forked before then keeps
    the server's (an agent can lower its own anyway). Raising it needs no privilege, but for a
    moment after the exec the child still counts as non-dumpable like the server (its /proc files
    are root's): the write is retried until the kernel has made it the user's."""
    path = Path(f"/proc/{pid}/oom_score_adj")
    give_up = time.monotonic() + OOM_SCORE_WRITE_S
    while True:
        try:
            path.write_text(str(value))
            return
        except PermissionError:
            if time.monotonic() >= give_up:  # a binary that stays non-dumpable (unreadable, setuid)
                return
            time.sleep(0.0002)
        except OSError:  # it has already ended
            return


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


def _harden() -> list[str]:
    """Non-dumpable: commands run as the same user, and could otherwise ptrace the server, open
    its pipes through /proc, or write its /proc/1/oom_score_adj. A child subreaper: orphaned
    processes come to the server to be reaped and swept even where it is not the namespace's init.
    A seccomp filter (inherited by every command) refusing to change another process's limits or
    scheduling: the same user may otherwise lower the server's limits (a hard CPU limit ends it
    with a SIGKILL from the kernel, which even a namespace's init receives) or starve it (nice 19,
    SCHED_IDLE, one CPU, idle I/O class). Must run before any thread starts (a filter binds the
    calling thread and what it creates). Returns what failed."""
    try:
        import ctypes
    except ImportError as exc:
        return [f"no ctypes: {exc}"]
    failed = []
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        for name, option in (("dumpable", PR_SET_DUMPABLE), ("subreaper", PR_SET_CHILD_SUBREAPER)):
            if libc.prctl(option, 1 if option == PR_SET_CHILD_SUBREAPER else 0, 0, 0, 0) != 0:
                failed.append(f"{name}: errno {ctypes.get_errno()}")
        failed += _deny_acting_on_others(ctypes, libc)
    except (OSError, AttributeError) as exc:
        failed.append(f"prctl: {exc}")
    return failed


def filter_program(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The seccomp program (classic BPF: code, jt, jf, k) for `machine`'s ABIs; None for an unknown
    machine. Every guarded call is checked under each ABI its processes can use; anything else,
    and any architecture not listed, is allowed."""
    abis = GUARDED_CALLS.get(machine)
    if abis is None:
        return None
    ld_abs, jeq, ret = 0x20, 0x15, 0x06
    nr, arch_offset = 0, 4
    arg0, arg1 = 16, 24  # args[i], low 32 bits (pid_t, int): seccomp_data is little-endian here
    program: list[tuple[int, int, int, int | str]] = []  # k or jump targets may be labels until resolved
    labels: dict[str, int] = {}
    jumps: list[tuple[int, str | None, str | None]] = []

    def emit(code: int, k: int | str = 0, on_true: str | None = None, on_false: str | None = None) -> None:
        if on_true or on_false:
            jumps.append((len(program), on_true, on_false))
        program.append((code, 0, 0, k))

    def label(name: str) -> None:
        labels[name] = len(program)

    emit(ld_abs, arch_offset)
    for index, (arch, calls) in enumerate(abis):
        label(f"abi{index}")
        emit(jeq, arch, on_false=f"abi{index + 1}")
        emit(ld_abs, nr)
        for number, kind in calls.items():
            emit(jeq, number, on_true=kind)
            if machine == "x86_64" and index == 0:
                emit(jeq, X32_SYSCALL_BIT | number, on_true=kind)
        emit(ret, SECCOMP_RET_ALLOW)
    label(TARGET)  # (pid, ...): only 0
    emit(ld_abs, arg0)
    emit(jeq, 0, on_true="allow", on_false="deny")
    for kind, every_process_of_the_user in ((PRIORITY, PRIO_USER), (IO_PRIORITY, IOPRIO_WHO_USER)):
        label(kind)  # (which, who, ...): who 0, and not every process of the caller's user
        emit(ld_abs, arg1)
        emit(jeq, 0, on_false="deny")
        emit(ld_abs, arg0)
        emit(jeq, every_process_of_the_user, on_true="deny", on_false="allow")
    label(f"abi{len(abis)}")  # jumps only go forward: the two verdicts come last
    label("allow")
    emit(ret, SECCOMP_RET_ALLOW)
    label("deny")
    emit(ret, SECCOMP_RET_EPERM)
    resolved = [(code, 0, 0, int(k)) for code, _, _, k in program]
    for position, on_true, on_false in jumps:
        code, _, _, k = resolved[position]
        true_offset = labels[on_true] - position - 1 if on_true else 0
        false_offset = labels[on_false] - position - 1 if on_false else 0
        if not (0 <= true_offset < 256 and 0 <= false_offset < 256):
            raise ValueError("seccomp program: a jump out of range")
        resolved[position] = (code, true_offset, false_offset, k)
    return resolved


def _deny_acting_on_others(ctypes: Any, libc: Any) -> list[str]:
    """Install the seccomp filter of `filter_program`: the guarded calls on another process fail with EPERM."""
    program = filter_program(platform.machine())
    if program is None:
        return [f"no syscall numbers for {platform.machine()}"]

    class Filter(ctypes.Structure):
        _fields_ = (("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint))

    class Program(ctypes.Structure):
        _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter)))

    filters = (Filter * len(program))(*(Filter(*instruction) for instruction in program))  # type: ignore[operator]
    fprog = Program(len(program), filters)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return [f"no_new_privs: errno {ctypes.get_errno()}"]
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return [f"seccomp: errno {ctypes.get_errno()}"]
    return []


def main() -> None:
    config = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    failed = _harden()
    if failed and config.get("require_hardening"):
        sys.stderr.write(f"skill2env command server: hardening failed: {'; '.join(failed)}\n")
        sys.stderr.flush()
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # no handler: as init, SIGINT from inside is dropped
    threading.stack_size(512 * 1024)  # threads count against RLIMIT_AS like the commands' memory
    server = Server(config)
    with contextlib.suppress(BrokenPipeError):
        server.serve()
    server.shutdown()
    os._exit(0)


if __name__ == "__main__":
    main()
