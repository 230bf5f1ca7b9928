"""A scripted OpenAI-compatible server on 127.0.0.1, for testing the model client for real.

It is a real HTTP server (a thread per connection) speaking `POST /v1/chat/completions` and
`GET /v1/models`. Each test scripts the answers, in order:

    with ScriptedServer() as server:
        server.script(status(429, retry_after=0.01), json_answer({"ok": True}))
        ...                              # the client's requests get those two answers
        server.requests                  # the JSON bodies it received, in order

When the script runs out, `respond` (a function of the request body) answers, if set; otherwise
the server answers HTTP 410 "script exhausted" (neither retried nor mistaken for a model answer).

`python tests/llm_server.py [--port N]` serves an instant fixed answer forever on asyncio (the
benchmark runs it in its own process) and prints its base URL on the first line.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "scripted-model"


@dataclass(frozen=True)
class Scripted:
    """One scripted answer."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (a slow response)."""
    drop: bool = False
    """Close the connection without answering."""
    stall_after: int | None = None
    """Streamed: go silent for `stall_seconds` after this many chunks (a model that stalls)."""
    stall_seconds: float = 0.0
    stream_error: str | None = None
    """Streamed: end the answer with this error event instead of its last chunks (a context overflow)."""
    pace: float = 0.0
    """Streamed: seconds between chunks (a slow model that keeps writing)."""
    cut: bool = False
    """Streamed: close the connection at `stall_after` chunks, mid-answer (a proxy that drops it)."""


def completion(
    message: dict[str, Any],
    *,
    finish_reason: str = "stop",
    prompt_tokens: int = 11,
    completion_tokens: int | None = None,
) -> Scripted:
    content = message.get("content") or ""
    tokens = completion_tokens if completion_tokens is not None else max(1, len(content) // 4)
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens},
    }
    return Scripted(body=json.dumps(body).encode())


def text(content: str, **usage: Any) -> Scripted:
    return completion({"content": content}, **usage)


def json_answer(value: object, **usage: Any) -> Scripted:
    return text(json.dumps(value), **usage)


def truncated(content: str) -> Scripted:
    """An answer cut off at the token limit (`finish_reason == "length"`)."""
    return completion({"content": content}, finish_reason="length")


def refusal(message: str) -> Scripted:
    return completion({"content": None, "refusal": message})


def tool_calls(*calls: tuple[str, str | dict[str, Any]], content: str | None = None) -> Scripted:
    """One or more (parallel) tool calls: (name, arguments as a JSON string — possibly malformed — or a dict)."""
    entries = [
        {
            "id": f"call_{index}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for index, (name, args) in enumerate(calls)
    ]
    return completion({"content": content, "tool_calls": entries}, finish_reason="tool_calls")


def status(code: int, message: str = "scripted error", *, retry_after: float | None = None) -> Scripted:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    body = json.dumps({"error": {"message": message, "type": "scripted", "code": code}}).encode()
    return Scripted(status=code, body=body, headers=headers)


def slow(seconds: float, then: Scripted) -> Scripted:
    return Scripted(then.status, then.body, then.headers, delay=seconds)


def drop() -> Scripted:
    return Scripted(drop=True)


def stalling(then: Scripted, *, after: int, seconds: float) -> Scripted:
    """Streamed, `then` goes silent for `seconds` after `after` chunks; whole, it is slow by as much."""
    return dataclasses.replace(then, stall_after=after, stall_seconds=seconds)


def failing_stream(then: Scripted, message: str, *, after: int) -> Scripted:
    """Streamed, `then` stops after `after` chunks with an error event (as endpoints report a context overflow)."""
    return dataclasses.replace(then, stall_after=after, stream_error=message)


def cut_stream(then: Scripted, *, after: int) -> Scripted:
    """Streamed, `then`'s connection is closed after `after` chunks, with no end to the answer."""
    return dataclasses.replace(then, stall_after=after, cut=True)


def paced(then: Scripted, seconds: float) -> Scripted:
    """Streamed, `then` arrives one chunk every `seconds`."""
    return dataclasses.replace(then, pace=seconds)


def stream_chunks(body: bytes) -> list[dict[str, Any]]:
    """A chat completion body as the chunks a streaming endpoint sends: a few characters each, usage last."""
    data = json.loads(body)
    choice, base = data["choices"][0], {"id": data["id"], "object": "chat.completion.chunk", "model": data["model"]}
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant"})]
    content = message.get("content") or ""
    chunks += [chunk({"content": content[i : i + 4]}) for i in range(0, len(content), 4)]
    if message.get("refusal"):
        chunks.append(chunk({"refusal": message["refusal"]}))
    for index, call in enumerate(message.get("tool_calls") or ()):
        head = {"index": index, "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}
        if "id" in call:  # some servers send none
            head["id"] = call["id"]
        chunks.append(chunk({"tool_calls": [head]}))
        arguments = call["function"]["arguments"]
        chunks += [chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[i : i + 8]}}]})
                   for i in range(0, len(arguments), 8)]  # fmt: skip
    chunks.append(chunk({}, choice["finish_reason"]))
    chunks.append({**base, "choices": [], "usage": data["usage"]})
    return chunks


class ScriptedServer:
    """The server; see the module docstring."""

    def __init__(self, respond: Callable[[dict[str, Any]], Scripted] | None = None, port: int = 0) -> None:
        self.respond = respond
        self.listing: dict[str, Any] = {"object": "list", "data": [{"id": MODEL}]}
        """What `GET /v1/models` answers (a test may add a context window)."""
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._script: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self), bind_and_activate=False)
        self._httpd.daemon_threads = True
        self._httpd.request_queue_size = 256
        self._httpd.server_bind()
        self._httpd.server_activate()
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *answers: Scripted) -> None:
        with self._lock:
            self._script.extend(answers)

    @property
    def pending(self) -> int:
        """Scripted answers not yet given."""
        return len(self._script)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _next(self, request: dict[str, Any], headers: dict[str, str]) -> Scripted:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            if self._script:
                return self._script.popleft()
        if self.respond is not None:
            return self.respond(request)
        return status(410, "script exhausted")

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # answer at once: no Nagle delay waiting for the client's (delayed) ACK
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(Scripted(body=json.dumps(server.listing).encode()))
            else:
                self._send(status(404, "not found"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(status(404, "not found"))
                return
            server._enter()
            try:
                request = json.loads(raw or b"{}")
                answer = server._next(request, {k.lower(): v for k, v in self.headers.items()})
                if answer.delay:
                    time.sleep(answer.delay)
                if answer.drop:
                    self.close_connection = True
                    return
                if request.get("stream") and answer.status == 200 and b'"choices"' in answer.body:
                    self._send_stream(answer)
                else:
                    if answer.stall_seconds:
                        time.sleep(answer.stall_seconds)
                    self._send(answer)
            finally:
                server._leave()

        def _send(self, answer: Scripted) -> None:
            try:
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer.body)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self._headers_buffer.append(b"\r\n" + answer.body)  # headers and body in one write
                self.flush_headers()
            except OSError:  # the client gave up (a timeout): nothing to answer
                self.close_connection = True

        def _send_stream(self, answer: Scripted) -> None:
            """Server-sent events in HTTP/1.1 chunks, then `data: [DONE]`."""
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for index, event in enumerate(stream_chunks(answer.body)):
                    if index == answer.stall_after:
                        if answer.cut:
                            self.close_connection = True
                            return
                        if answer.stream_error is not None:
                            self._event({"error": {"message": answer.stream_error, "type": "server_error"}})
                            break
                        time.sleep(answer.stall_seconds)
                    if answer.pace:
                        time.sleep(answer.pace)
                    self._event(event)
                else:
                    self._write_chunk(b"data: [DONE]\n\n")
                self._write_chunk(b"")
            except OSError:  # the client gave up (an idle timeout): nothing more to send
                self.close_connection = True

        def _event(self, event: dict[str, Any]) -> None:
            self._write_chunk(b"data: " + json.dumps(event).encode() + b"\n\n")

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler


async def serve_instant(port: int = 0) -> None:
    """The benchmark's server: one fixed answer, instantly, on asyncio (no GIL contention between
    handler threads, so at 64 connections the server is not what is measured). Prints its base URL."""
    answer = text("ok")
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(answer.body)}\r\n\r\n"
    response = head.encode() + answer.body
    models = json.dumps({"object": "list", "data": [{"id": MODEL}]}).encode()
    listing = f"HTTP/1.1 200 OK\r\nContent-Length: {len(models)}\r\n\r\n".encode() + models

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                header = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in header.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                writer.write(listing if header.startswith(b"GET") else response)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=512)
    host, bound = server.sockets[0].getsockname()[:2]
    print(f"http://{host}:{bound}/v1", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve an instant, fixed chat completion on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    asyncio.run(serve_instant(parser.parse_args().port))


if __name__ == "__main__":
    main()
