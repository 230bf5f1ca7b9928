"""The docker attach stream: the engine's frames split back into the server's stdout lines and
its stderr, over a socket pair standing in for the engine."""

from __future__ import annotations

import io
import socket
import struct
import threading

import pytest

from skill2env.sandbox.docker_attach import STDERR_KEPT, _Frames, _Requests, attached_socket
from skill2env.sandbox.errors import SandboxCrashed


def frame(stream: int, payload: bytes) -> bytes:
    return struct.pack(">BxxxL", stream, len(payload)) + payload


@pytest.fixture
def pair():
    ours, engine = socket.socketpair()
    yield ours, engine
    ours.close()
    engine.close()


def test_stdout_frames_read_as_lines_across_frame_boundaries_and_stderr_is_kept_apart(pair) -> None:
    ours, engine = pair
    frames = _Frames(ours)
    replies = io.BufferedReader(frames)
    engine.sendall(
        frame(1, b'{"ready": true}\n{"id": 1,')
        + frame(2, b"a warning\n")
        + frame(1, b' "exit_code": 0}\n')
        + frame(1, b"")
        + frame(1, b"x" * 100_000 + b"\n")
    )
    engine.shutdown(socket.SHUT_WR)

    assert list(replies) == [b'{"ready": true}\n', b'{"id": 1, "exit_code": 0}\n', b"x" * 100_000 + b"\n"]
    assert frames.stderr() == "a warning\n"


def test_a_frame_cut_short_is_the_end_of_the_stream(pair) -> None:
    ours, engine = pair
    replies = io.BufferedReader(_Frames(ours))
    engine.sendall(frame(1, b"whole\n") + frame(1, b"cut short")[:-3])
    engine.shutdown(socket.SHUT_WR)

    assert list(replies) == [b"whole\n"]


def test_only_the_tail_of_stderr_is_kept(pair) -> None:
    ours, engine = pair
    frames = _Frames(ours)
    engine.sendall(frame(2, b"e" * (3 * STDERR_KEPT)) + frame(2, b"last"))
    engine.shutdown(socket.SHUT_WR)

    assert frames.readinto(bytearray(10)) == 0
    assert len(frames.stderr()) == STDERR_KEPT and frames.stderr().endswith("last")


def test_requests_go_out_whole_and_closing_half_closes(pair) -> None:
    ours, engine = pair
    requests = _Requests(ours)
    received = bytearray()

    def read_all() -> None:
        while chunk := engine.recv(65536):
            received.extend(chunk)

    reader = threading.Thread(target=read_all)
    reader.start()
    requests.write(b"x" * 1_000_000)
    requests.flush()
    requests.close()
    reader.join(timeout=10)

    assert not reader.is_alive() and len(received) == 1_000_000
    engine.sendall(b"still readable")  # only our sending side is closed
    assert ours.recv(100) == b"still readable"


def test_an_attach_stream_that_is_not_a_socket_is_refused() -> None:
    with pytest.raises(SandboxCrashed, match="not a socket"):
        attached_socket(object())
