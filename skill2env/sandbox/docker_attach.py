"""A container's main process as a command server: its stdin / stdout over the engine's attach.

The container is created with `stdin_open` and `stdin_once`, attached to before it starts (so no
output is missed and nothing is buffered ahead of the HTTP headers), then started. With tty off the
engine multiplexes the process's stdout and stderr onto the attach stream in frames: an 8-byte
header (stream: 0 stdin, 1 stdout, 2 stderr; three zero bytes; the payload's size, big-endian u32)
and the payload (`POST /containers/{id}/attach`, "Stream format"). `AttachedServer` reads the
frames: stdout becomes plain lines for `CommandClient`, the last few KiB of stderr are kept to
report why a server failed. Writing is plain bytes to the container's stdin; closing it is a
half-close of the socket, after which the engine closes the process's stdin (`stdin_once`) and the
server exits; when this process dies the socket closes and the same happens.
"""

from __future__ import annotations

import contextlib
import io
import socket
import struct
import threading
from typing import Any

from skill2env.sandbox.command_client import CommandClient
from skill2env.sandbox.errors import SandboxCrashed

ATTACH_PARAMS = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
HEADER = struct.Struct(">BxxxL")
STDOUT, STDERR = 1, 2
STDERR_KEPT = 8192


def attached_socket(handle: Any) -> socket.socket:
    """The plain socket under what `APIClient.attach_socket` returns (a `SocketIO` for a local
    engine, the socket itself over TLS); other transports (named pipes, ssh) are refused."""
    raw = getattr(handle, "_sock", handle)
    if not isinstance(raw, socket.socket):
        raise SandboxCrashed(f"the engine's attach stream is a {type(raw).__name__}, not a socket")
    return raw


class _Requests(io.RawIOBase):
    """The container's stdin: writes go out whole; closing half-closes the socket."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        payload = bytes(data)
        self._sock.sendall(payload)
        return len(payload)

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_WR)
        super().close()


class _Frames(io.RawIOBase):
    """The process's stdout, out of the engine's frames; stderr frames go to `stderr`."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._pending = memoryview(b"")
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            header = self._exactly(HEADER.size)
            if header is None:
                return 0
            stream, size = HEADER.unpack(header)
            payload = self._exactly(size) if size else b""
            if payload is None:
                return 0
            if stream == STDERR:
                with self._stderr_lock:
                    self._stderr += payload
                    del self._stderr[:-STDERR_KEPT]
            elif stream == STDOUT:
                self._pending = memoryview(payload)
        count = min(len(buffer), len(self._pending))
        buffer[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        return count

    def stderr(self) -> str:
        with self._stderr_lock:
            return self._stderr.decode(errors="replace")

    def _exactly(self, size: int) -> bytes | None:
        """`size` bytes, or None where the stream ends first (a frame cut short counts as the end)."""
        data = bytearray(size)
        view, got = memoryview(data), 0
        while got < size:
            received = self._sock.recv_into(view[got:])
            if received == 0:
                return None
            got += received
        return bytes(data)


class AttachedServer:
    """A command server that is a container's main process, talked to over the engine's attach."""

    def __init__(self, handle: Any, *, describe: str) -> None:
        self._handle = handle  # keeps the engine's HTTP response (and so the connection) alive
        self._sock = attached_socket(handle)
        self._sock.settimeout(None)  # replies may be minutes apart; the client's own waits time out
        self._frames = _Frames(self._sock)
        self._requests = _Requests(self._sock)
        self.client = CommandClient(self._requests, io.BufferedReader(self._frames), describe=describe)  # type: ignore[arg-type]

    def stderr(self) -> str:
        """The tail of what the server wrote to its stderr (why it failed, if it did)."""
        return self._frames.stderr()

    def stop(self) -> None:
        """Close the server's stdin (it then ends everything it started and exits) and the stream."""
        self.client.close()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(Exception):
            self._handle.close()
