"""The attack suite: what a hostile agent would try, run against every backend. Every attempt must
be contained — the host sees no effect, and the sandbox stays within its limits. An agent that
breaks its own sandbox anyway (its memory use gets the command server killed) gets that as its own
outcome (`SandboxBroken`), never an infrastructure error; a sandbox killed from the host is one."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, SandboxFactory, fixture_task, tree
from host_faults import OOM_THE_SERVER, kill_server_from_the_host

from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.errors import SandboxBroken, SandboxCrashed, SandboxPathError, SandboxTimeout
from skill2env.tasks.store import TaskStore

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FORK_BOMB = ":(){ :|:& };:"
ATTACK_LIMITS = SandboxLimits(memory_mb=256, pids=128, storage_mb=32, tmp_mb=32, wall_clock_s=600)


@pytest.fixture
def sandbox(new_sandbox: SandboxFactory) -> Sandbox:
    started = new_sandbox(ATTACK_LIMITS)
    started.start(fixture_task(CSV_AGGREGATION))
    return started


@pytest.fixture
def loopback_server() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on the host's 127.0.0.1 that records whatever reaches it."""
    received: list[bytes] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                received.append(connection.recv(100) or b"<connected>")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join()
    server.close()


def _host_processes_matching(marker: str) -> list[str]:
    listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if marker in line and "ps -eo" not in line]


def _wait_until_gone(marker: str, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while _host_processes_matching(marker) and time.monotonic() < deadline:
        time.sleep(0.2)


def test_outbound_tcp_to_a_host_loopback_server_is_blocked(sandbox: Sandbox, loopback_server) -> None:
    port, received = loopback_server
    probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3).sendall(b'escaped')"

    result = sandbox.exec(["python3", "-c", probe], timeout=30)

    assert result.exit_code != 0
    time.sleep(0.5)
    assert received == []


def test_dns_resolution_fails(sandbox: Sandbox) -> None:
    result = sandbox.exec(["python3", "-c", "import socket; print(socket.getaddrinfo('deb.debian.org', 80))"])

    assert result.exit_code != 0
    assert "gaierror" in result.stderr or "Temporary failure" in result.stderr


def test_host_files_outside_the_workspace_cannot_be_read(sandbox: Sandbox, tmp_path: Path) -> None:
    secret = Path("/tmp") / f"skill2env-secret-{uuid.uuid4().hex}"
    secret.write_text("TOP-SECRET")
    secret.chmod(0o644)
    try:
        result = sandbox.exec(
            f"cat {secret}; cat /etc/shadow; ls /root /work /var/run/docker.sock /run/docker.sock; "
            f"cat {Path(__file__).resolve()}",
            timeout=30,
        )
    finally:
        secret.unlink()

    assert "TOP-SECRET" not in result.stdout
    assert "root:" not in result.stdout
    assert "docker.sock" not in result.stdout
    assert "pytestmark" not in result.stdout
    assert result.exit_code != 0


def test_links_in_the_final_workspace_never_bring_host_files_into_the_store(sandbox: Sandbox, tmp_path: Path) -> None:
    """The agent links host paths into its workspace; the snapshot (as a rollout stores it) must not
    read them on the host, where this process may read anything."""
    secret = Path("/tmp") / f"skill2env-secret-{uuid.uuid4().hex}"
    secret.write_text("TOP-SECRET")
    try:
        sandbox.exec(
            f"ln -s {secret} secret; ln -s /etc/shadow shadow; ln -s /proc/self/environ environ; "
            "ln -s ../../../../../../etc/shadow climbing; ln -s sales.csv copy.csv",
            timeout=30,
        )
        copied = tmp_path / "workspace"
        sandbox.copy_out_last(sandbox.workspace, copied)
        stored = TaskStore(tmp_path / "home").put_dir(copied)
    finally:
        secret.unlink()

    files = tree(stored.path)
    assert sorted(files) == ["copy.csv", "sales.csv"]
    assert files["copy.csv"] == files["sales.csv"]


def _made_and_copied(sandbox: Sandbox, script: str, copied: Path, *, last: bool) -> Path:
    """Run `script` as the agent, then copy the workspace out to `copied`: as a rollout's snapshot does
    (`last`), or as any copy does."""
    made = sandbox.exec(f"{script} && echo made", timeout=60)
    assert made.stdout.strip() == "made", made.stderr
    (sandbox.copy_out_last if last else sandbox.copy_out)(sandbox.workspace, copied)
    return copied


@pytest.mark.parametrize("last", [True, False], ids=["final-copy", "copy"])
def test_nothing_in_the_workspace_can_make_storing_it_fail(sandbox: Sandbox, tmp_path: Path, last: bool) -> None:
    """A final workspace that cannot be stored makes the attempt an infrastructure error, never scored:
    pipes, sockets, a tree deeper than Python's recursion limit and names that are not UTF-8 must not
    fail the copy or the store."""
    copied = _made_and_copied(
        sandbox,
        "mkdir -p output && echo total > output/result.txt && mkfifo pipe output/pipe && "
        "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")' && "
        "deep=$(printf 'd/%.0s' $(seq 1400)) && mkdir -p $deep && echo buried > $deep/f && "
        "shallow=$(printf 'd/%.0s' $(seq 63)) && echo kept > ${shallow}f && "
        "touch \"$(printf 'bad\\377')\" && mkdir \"$(printf '\\376')\" && touch \"$(printf '\\376')/x\" && "
        "printf x > \"$(printf 'two\\nlines')\"",
        tmp_path / "workspace",
        last=last,
    )
    files = tree(TaskStore(tmp_path / "home").put_dir(copied).path)

    shallow = "d/" * 63 + "f"
    assert sorted(files) == sorted([shallow, "output/result.txt", "sales.csv", "two\nlines"])
    assert files[shallow] == b"kept\n"


@pytest.mark.parametrize("last", [True, False], ids=["final-copy", "copy"])
def test_sparse_files_and_hard_links_cannot_make_the_copy_write_more_than_the_storage_limit(
    sandbox: Sandbox, tmp_path: Path, last: bool
) -> None:
    """A 32 MiB workspace whose files add up to 2.6 GB without using the space (sparse files, and hard
    links to one file): the copy out must not write them all to the host, or enough of them would fill
    its disk and fail every rollout's store."""
    copied = _made_and_copied(
        sandbox,
        "mkdir -p output && echo total > output/result.txt && "
        "for i in $(seq 1 50); do truncate -s 30M sparse$i; done && "
        "head -c 20000000 /dev/zero > dense && for i in $(seq 1 50); do ln dense link$i; done",
        tmp_path / "workspace",
        last=last,
    )

    sizes = {path.relative_to(copied).as_posix(): path.stat().st_size for path in copied.rglob("*") if path.is_file()}
    assert sum(sizes.values()) <= ATTACK_LIMITS.storage_mb << 20
    if last or sandbox.backend == "bwrap":  # a file copy: what fits is kept, in name order within each folder
        assert sizes["output/result.txt"] == 6 and sizes["sales.csv"] > 0
    # a tar stream (in the engine's order) is read no further once its files add up to twice the limit


def test_nothing_outside_the_workspace_can_be_written(sandbox: Sandbox) -> None:
    marker = f"skill2env-escape-{uuid.uuid4().hex}"
    attempts = [f"/usr/{marker}", f"/etc/{marker}", f"/{marker}", f"/solution/{marker}", f"/tests/{marker}"]

    results = [sandbox.exec(f"echo x > {path}") for path in attempts]
    sandbox.exec(f"echo x > /tmp/{marker}")  # the sandbox's own /tmp: allowed, but private

    assert all(result.exit_code != 0 for result in results), [r.stderr for r in results]
    assert not any(Path(path).exists() for path in [*attempts, f"/tmp/{marker}"])


def test_a_fork_bomb_is_contained(sandbox: Sandbox) -> None:
    began = time.monotonic()
    with contextlib.suppress(SandboxTimeout):  # it may also end by itself once forks fail at the limit
        sandbox.exec(FORK_BOMB, timeout=5)

    assert time.monotonic() - began < 30
    assert len(_host_processes_matching(FORK_BOMB)) <= ATTACK_LIMITS.pids
    assert subprocess.run(["true"], check=False).returncode == 0  # the host can still fork
    sandbox.stop()
    _wait_until_gone(FORK_BOMB)
    assert _host_processes_matching(FORK_BOMB) == []


def test_memory_exhaustion_kills_the_command_not_the_host(sandbox: Sandbox) -> None:
    hog = "x = []\nwhile True:\n    x.append(bytearray(32 << 20))\n    x[-1][::4096] = b'1' * (len(x[-1]) // 4096)\n"

    result = sandbox.exec(["python3", "-c", hog], timeout=60)

    assert result.exit_code != 0
    assert sandbox.exec("echo alive").stdout == "alive\n"


def test_filling_the_workspace_stops_at_its_size_limit(sandbox: Sandbox) -> None:
    result = sandbox.exec("dd if=/dev/zero of=big bs=1M count=200 status=none", timeout=60)

    assert result.exit_code != 0
    # ENOSPC from the size-limited tmpfs, or SIGXFSZ (128 + 25) from RLIMIT_FSIZE where there is none
    assert "No space left" in result.stderr or result.exit_code == 128 + 25
    size_kb = int(sandbox.exec("du -sk . | cut -f1").stdout)
    assert size_kb <= (ATTACK_LIMITS.storage_mb + 1) * 1024  # the limit, plus the task's own files
    assert sandbox.exec("rm big && echo freed").stdout == "freed\n"


PRIVILEGE_PROBES = {
    "setuid(0)": "python3 -c 'import os; os.setuid(0)'",
    "su": "su -c true root </dev/null",
    "mount": "mkdir -p /tmp/m && mount -t tmpfs none /tmp/m",
    "user namespace": "unshare -r true",
    "chown to root": "touch /tmp/owned && chown 0:0 /tmp/owned",
    "effective capabilities": "grep -Eq '^CapEff:[[:space:]]*0*[1-9a-f]' /proc/self/status",
    "privileges can be regained": "! grep -Eq '^NoNewPrivs:[[:space:]]*1' /proc/self/status",
}


@pytest.mark.parametrize("user", ["agent", "root"])
def test_privilege_escalation_is_denied(sandbox: Sandbox, user: str) -> None:
    script = "\n".join(
        f"if ( {probe} ) >/dev/null 2>&1; then echo 'ESCALATED {name}'; else echo 'DENIED {name}'; fi"
        for name, probe in PRIVILEGE_PROBES.items()
    )

    result = sandbox.exec(script, user=user, timeout=60)

    escalated = [line.removeprefix("ESCALATED ") for line in result.stdout.splitlines() if "ESCALATED" in line]
    if user == "root":  # already uid 0, without capabilities: setuid(0) and chown of its own file are no-ops
        escalated = [name for name in escalated if name not in ("setuid(0)", "chown to root")]
    assert escalated == []
    assert len(result.stdout.splitlines()) == len(PRIVILEGE_PROBES)


def test_killing_the_parent_fails(sandbox: Sandbox) -> None:
    host_pid = os.getpid()

    sandbox.exec(f"kill -9 {host_pid}; kill -9 $PPID; kill -9 1; kill -9 -1", timeout=30)

    assert os.getpid() == host_pid  # we are still here to check
    assert sandbox.exec("echo alive").stdout == "alive\n"


def test_no_process_survives_stop(sandbox: Sandbox) -> None:
    marker = f"{time.time_ns() % 100000}.{os.getpid()}"
    sandbox.exec(f"setsid nohup sleep {marker} >/dev/null 2>&1 & nohup sleep {marker} >/dev/null 2>&1 &", timeout=10)

    sandbox.stop()

    _wait_until_gone(f"sleep {marker}")
    assert _host_processes_matching(f"sleep {marker}") == []


SERVER_STAT = "cut -d' ' -f19,41 /proc/1/stat"
"""The server's nice value and scheduling policy (fields 19 and 41; its command name holds no space)."""


def test_renicing_or_rescheduling_the_server_is_refused(sandbox: Sandbox) -> None:
    before = sandbox.exec(SERVER_STAT).stdout
    attempts = {
        "renice": "renice -n 19 -p 1",
        "renice of the user": "renice -n 19 -u agent",
        "SCHED_IDLE": "chrt -i -p 0 1",
        "affinity": "taskset -p 1 1",
        "idle I/O": "ionice -c 3 -p 1",
        "CPU limit": "prlimit --pid 1 --cpu=1:1",
    }

    results = {name: sandbox.exec(command) for name, command in attempts.items()}

    assert {name: r.exit_code != 0 for name, r in results.items()} == dict.fromkeys(attempts, True)
    assert sandbox.exec(SERVER_STAT).stdout == before == "0 0\n"
    # Its own priority the agent may still lower.
    assert sandbox.exec("nice -n 5 cut -d' ' -f19 /proc/self/stat").stdout == "5\n"


def test_the_agents_commands_are_the_oom_killers_first_choice(new_sandbox: SandboxFactory) -> None:
    sandbox = new_sandbox(SandboxLimits(memory_mb=160, pids=128, storage_mb=32, tmp_mb=32, wall_clock_s=600))
    sandbox.start(fixture_task(CSV_AGGREGATION))
    assert sandbox.exec("sleep 0.2; cat /proc/self/oom_score_adj /proc/1/oom_score_adj").stdout == "1000\n0\n"
    # Many processes each smaller than the server: by size alone the OOM killer would take the server.
    hogs = "for i in $(seq 30); do bash -c 'x=$(head -c 6M /dev/zero | tr \"\\0\" a); sleep 30' & done; wait"

    pressure = sandbox.exec(hogs, timeout=120)

    assert "Killed" in pressure.stderr
    assert sandbox.exec("echo alive").stdout == "alive\n"


def test_an_agent_whose_memory_use_kills_the_server_broke_its_own_sandbox(new_sandbox: SandboxFactory) -> None:
    sandbox = new_sandbox(SandboxLimits(memory_mb=128, pids=128, storage_mb=256, tmp_mb=256, wall_clock_s=600))
    sandbox.start(fixture_task(CSV_AGGREGATION))
    if isinstance(sandbox, BwrapSandbox) and sandbox.memory_cgroup is None:
        pytest.skip("no memory cgroup of its own (not root): the host's memory would run out")
    sandbox.write_file("notes.txt", "kept")

    with pytest.raises(SandboxBroken, match="OOM killer") as broken:
        sandbox.exec(OOM_THE_SERVER, timeout=120)

    with pytest.raises(SandboxBroken) as again:
        sandbox.exec("echo alive")
    assert again.value is broken.value
    if isinstance(sandbox, BwrapSandbox):  # the workspace lives on the host: the attempt can be scored
        assert sandbox.read_file("notes.txt") == b"kept"
    else:  # the container took its tmpfs workspace with it: nothing to score, and nothing pretends otherwise
        with pytest.raises(SandboxPathError, match="ended"):
            sandbox.copy_out(sandbox.workspace, Path("/nonexistent-never-written"))


def test_a_sandbox_killed_from_the_host_is_not_the_agents_doing(sandbox: Sandbox) -> None:
    assert sandbox.exec("echo up").ok
    kill_server_from_the_host(sandbox)

    with pytest.raises(SandboxCrashed) as crashed:
        sandbox.exec("echo alive", timeout=30)

    assert not isinstance(crashed.value, SandboxBroken)
    assert "SIGKILL from outside the sandbox" in str(crashed.value)
