"""The in-environment verifier: scores a rubric's items on the final workspace.

    python3 -I /tests/verify.py [--rubric /tests/rubric.json] [--workspace /workspace] [--out /logs/verifier]
                                [--no-judge]
    python3 -I /tests/verify.py ... --batch CANDIDATES_DIR

Copied into a task's `tests/` as `verify.py` beside the `rubric_checks/` package and
`judge_prompt.py` (see `skill2env.rubric.bundle`), it runs in the task environment after the agent
finished, with the standard library only. Deterministic items are scored by their checks. Judge
items: their target files are collected, size-capped, and

* when the environment names a judge endpoint — `SKILL2ENV_LLM_JUDGE_BASE_URL` and
  `SKILL2ENV_LLM_JUDGE_MODEL` both non-empty, `SKILL2ENV_LLM_JUDGE_API_KEY` optional (a bearer
  token), `SKILL2ENV_LLM_JUDGE_TIMEOUT_SECONDS` optional (per request, default 120) — the verifier
  asks it (OpenAI-compatible `POST {base}/chat/completions`, temperature 0, the prompt and reply
  parsing of `judge_prompt`, the same as the host's judge role). A failed call or a reply that is
  not a verdict leaves the item `unscored` with the reason, never passed;
* otherwise, or with `--no-judge` (the host's own verification passes it: its judge role scores
  these items from `judge_inputs.json`, and no endpoint that leaks into the environment is ever
  called), the item is left `unscored`.

The reward is r = Σ w·q / Σ w over every item, an unscored item counting q = 0; the attempt is
`complete` only when every item was scored, and `full_credit` when complete with r ≥ 0.999. It
writes to the output directory:

* `reward.json` — Harbor's reward file: `{"reward": r}` and nothing else (Harbor treats every key
  as a reward dimension), always a number (0 for an empty rubric);
* `results.json` — every item's status (passed / failed / error / unscored), q, who scored it
  (`scored_by`: `verifier` for a check, `judge` for a judge item the verifier's endpoint scored,
  null when unscored), evidence and error; the reward, `complete`, `full_credit`, and `judge`
  (the model asked, or why none was);
* `judge_inputs.json` — per judge item, the files its judge reads.

Run it with `-I` (isolated mode): the workspace is the agent's, and nothing the agent wrote may
shadow a module this script imports. Exit status 0 once the results are written, whatever the
reward; 2 when the rubric cannot be read (then no reward file is written).

**Batch mode** (`--batch CANDIDATES_DIR`, for the host's own candidate workspaces, never an
agent's): `CANDIDATES_DIR/batch.json` lists candidate folders, `{"candidates": [{"name": …,
"copy": true|false} or {"name": …, "late": true}, …]}`. For each in turn, a child forked from this
process (which has imported the checks and verified nothing, so no state one verification leaves
in the process — the rubric's own Python included — reaches another) empties the real workspace
path, copies the candidate's files into it the way the host's copy-in does (`shutil.copytree`
into the existing workspace: contents, modes, times and extended attributes kept, the workspace
folder taking the candidate folder's; the workspace's owner; links and special files refused and
named in `refused`; nothing at all when `copy` is false, as the host copies nothing for an empty
workspace), runs `verify` exactly as the single mode does (same call depth) and writes the three
files under `OUT/<name>/`. A `late` candidate is copied in by the host while the batch runs: the
verifier waits up to `--wait-timeout` seconds for the host's `<name>.ready` (holding `copy` or
`empty`) or `<name>.absent` beside it, and skips it without one. `--candidate-timeout` kills a
child past it. The workspace is left empty. A candidate that cannot be loaded gets a
`results.json` with status `error` and is not verified. Exit status 3, before anything is loaded,
when this process cannot give the workspace's files their owner (e.g. root without capabilities
facing a workspace another user owns): the host then verifies the candidates one by one.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import http.client
import json
import math
import os
import platform
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

if __package__:
    from .checks import (
        MEMO_ENV,
        CheckResult,
        CheckTimeout,
        clear_cache,
        judge_inputs,
        run_check,
        warm_up,
        weighted_reward,
    )
    from .judge_prompt import (
        JUDGE_PASS_Q,
        JUDGE_SEED,
        MAX_QUOTE_CHARS,
        MAX_REASONING_CHARS,
        JudgeReplyError,
        judge_messages,
        judge_request,
        parse_reply,
        quote_found,
    )
else:
    # Run as a script: `python3 -I` puts neither the working directory nor the script's own on
    # sys.path, so add only the script's directory (the verifier's, never the agent's).
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:  # /tests/verify.py beside its rubric_checks/ package
        from rubric_checks import (  # type: ignore[no-redef]
            MEMO_ENV,
            CheckResult,
            CheckTimeout,
            clear_cache,
            judge_inputs,
            run_check,
            warm_up,
            weighted_reward,
        )
    except ImportError:  # a source checkout: skill2env/rubric/verify_main.py beside checks/
        from checks import (  # type: ignore[no-redef]
            MEMO_ENV,
            CheckResult,
            CheckTimeout,
            clear_cache,
            judge_inputs,
            run_check,
            warm_up,
            weighted_reward,
        )
    from judge_prompt import (  # type: ignore[no-redef]  # beside this script in the bundle and the checkout
        JUDGE_PASS_Q,
        JUDGE_SEED,
        MAX_QUOTE_CHARS,
        MAX_REASONING_CHARS,
        JudgeReplyError,
        judge_messages,
        judge_request,
        parse_reply,
        quote_found,
    )

RESULTS_SCHEMA_VERSION = 1
DEFAULT_WORKSPACE = "/workspace"
DEFAULT_OUT = "/logs/verifier"
DEFAULT_ITEM_TIMEOUT_S = 60.0
REWARD_FILE = "reward.json"
RESULTS_FILE = "results.json"
JUDGE_INPUTS_FILE = "judge_inputs.json"
TASK_SCRIPT_CHECK = "task_script"
RESERVED_KEYS = ("reward", "scored_weight")
"""Names no rubric item may take (the rubric model refuses them): reward.json's key and the results' own."""
FULL_CREDIT_AT = 0.999
"""A complete attempt whose reward reaches this solved the task (float slack below 1.0). A copy of
`skill2env.thresholds.FULL_CREDIT_AT`: this program runs alone (a test keeps the two equal)."""
NO_JUDGE_FLAG = "--no-judge"
JUDGE_BASE_URL_ENV = "SKILL2ENV_LLM_JUDGE_BASE_URL"
JUDGE_MODEL_ENV = "SKILL2ENV_LLM_JUDGE_MODEL"
JUDGE_API_KEY_ENV = "SKILL2ENV_LLM_JUDGE_API_KEY"
JUDGE_TIMEOUT_ENV = "SKILL2ENV_LLM_JUDGE_TIMEOUT_SECONDS"
DEFAULT_JUDGE_TIMEOUT_S = 120.0
JUDGE_RETRIES = 2
"""Further attempts after a failed call (no answer, HTTP 408 / 409 / 429 / 5xx); a reply is never re-asked."""
JUDGE_BACKOFF_S = 1.0
MAX_RETRY_AFTER_S = 30.0
MAX_REPLY_BYTES = 8 << 20
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
HOST_JUDGE = "judge items are scored by the host's judge role"
NO_ENDPOINT = f"no judge endpoint given ({JUDGE_BASE_URL_ENV} and {JUDGE_MODEL_ENV} are not both set)"
EXIT_OK = 0
EXIT_BAD_RUBRIC = 2
EXIT_BATCH_UNSUPPORTED = 3
BATCH_MANIFEST = "batch.json"
CAPABILITY_VERSION_3 = 0x20080522
"""_LINUX_CAPABILITY_VERSION_3 of capset(2): two 32-bit words per set."""

CANDIDATE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_+-]{0,199}$")
"""No dot: `<name>.ready` / `<name>.absent` and the manifest never name a candidate."""
WAIT_POLL_S = 0.01


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise CheckTimeout in this thread after `seconds` (main thread only; elsewhere no limit)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise CheckTimeout(f"ran past {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def score_item(
    item: dict[str, Any], workspace: Path, tests_dir: Path, default_timeout: float, time_left: float | None = None
) -> dict[str, Any]:
    """One item's result: a deterministic item's check run under its time limit — `passed` or
    `failed`, whatever happens (a check that raises or times out fails, its cause in `error`); a
    judge item left unscored for the host. `time_left`: what is left of the checks' time budget
    (None: no budget); a check gets no more, and none at all once it is spent."""
    entry: dict[str, Any] = {
        "id": item.get("id"),
        "method": item.get("method"),
        "weight": item.get("weight"),
        "status": "failed",
        "q": 0.0,
        "scored_by": "verifier",
        "evidence": {},
        "error": None,
    }
    started = time.perf_counter()
    method = item.get("method")
    if method == "llm_judge":
        entry.update(status="unscored", q=None, scored_by=None, evidence={"reason": HOST_JUDGE})
    elif method == "deterministic" and (item.get("check") or {}).get("check") == TASK_SCRIPT_CHECK:
        entry["error"] = "the task's own verification script scores this item (verify in task_script mode)"
    elif method == "deterministic":
        spec = item.get("check") or {}
        timeout = _timeout(spec.get("timeout_s"), default_timeout)
        budgeted = time_left is not None and time_left < timeout
        if budgeted:
            timeout = max(0.0, time_left or 0.0)
        try:
            if timeout <= 0:
                raise CheckTimeout
            with time_limit(timeout):
                result = run_check(str(spec.get("check")), workspace, spec.get("params") or {}, tests_dir=tests_dir)
        except CheckTimeout:
            summary = (
                f"the checks' time budget ran out ({timeout:g} s were left for this one): the checks before it "
                "used it on the final workspace"
                if budgeted
                else f"the check ran past its {timeout:g} s limit"
            )
            result = CheckResult(False, {"summary": summary}, summary)
        entry.update(status=result.status, evidence=result.evidence, error=result.error)
        entry["q"] = 1.0 if result.status == "passed" else 0.0
    else:
        entry["error"] = f"unknown method {method!r}"
    entry["duration_s"] = round(time.perf_counter() - started, 6)
    return entry


def _timeout(value: Any, default: float) -> float:
    """A check's own time limit when it is a sane number, else the default."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return float(value)
    return default


def collect_judge_inputs(workspace: Path, item: dict[str, Any]) -> dict[str, Any]:
    """A judge item's files; a failure to collect them is recorded, never fatal to the verifier."""
    try:
        return judge_inputs(workspace, list(item.get("target_files") or []))
    except Exception as exc:  # a target pattern the rubric got wrong, an unreadable tree
        return {"files": [], "missing": [], "listing": [], "error": f"{type(exc).__name__}: {exc}"}


# -- judge items: an OpenAI-compatible endpoint named by the environment -------------------------------


class JudgeCallError(RuntimeError):
    """The judge endpoint gave no answer (unreachable, timed out, an HTTP error)."""


class JudgeEndpoint:
    """An OpenAI-compatible chat-completions endpoint, asked with the standard library's HTTP client."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_JUDGE_TIMEOUT_S,
        retries: int = JUDGE_RETRIES,
        backoff: float = JUDGE_BACKOFF_S,
    ) -> None:
        if not base_url.lower().startswith(("http://", "https://")):
            raise ValueError("the judge endpoint must be an http(s) URL")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    @property
    def name(self) -> str:
        """As the host's judge role names a model-backed judge."""
        return f"model:{self.model}"

    def complete(self, messages: list[dict[str, str]], *, seed: int) -> str | None:
        """The reply's text (None when the reply has no text).

        Raises: JudgeCallError: no answer after every attempt, or an HTTP error not worth retrying.
            JudgeReplyError: an answer that is not a chat completion."""
        body = json.dumps(
            {"model": self.model, "messages": messages, "temperature": 0, "seed": seed}, ensure_ascii=True
        ).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        failures: list[str] = []
        for attempt in range(self.retries + 1):
            wait = self.backoff * 2**attempt
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")  # noqa: S310 — http(s) only
            try:
                with time_limit(self.timeout), _OPENER.open(request, timeout=self.timeout) as response:
                    raw = response.read(MAX_REPLY_BYTES + 1)
            except urllib.error.HTTPError as exc:
                detail = _error_detail(exc)
                if exc.code not in RETRYABLE_STATUS:
                    raise JudgeCallError(f"HTTP {exc.code} from the judge endpoint: {detail}") from None
                failures.append(f"HTTP {exc.code}: {detail}")
                wait = _retry_after(exc.headers.get("Retry-After"), wait)
            except (urllib.error.URLError, http.client.HTTPException, OSError, CheckTimeout) as exc:
                failures.append(f"{type(exc).__name__}: {getattr(exc, 'reason', None) or exc}")
            else:
                if len(raw) > MAX_REPLY_BYTES:
                    raise JudgeReplyError(f"the reply is larger than {MAX_REPLY_BYTES} bytes")
                return reply_text(raw)
            if attempt < self.retries:
                time.sleep(wait)
        raise JudgeCallError(f"no answer after {len(failures)} attempt(s): {'; '.join(failures)}")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an HTTP error here: the judge's POST goes to the URL given, nowhere else."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read(2000).decode("utf-8", errors="replace")
    except (OSError, http.client.HTTPException):
        text = ""
    return " ".join(text.split())[:300] or str(exc.reason)


def _retry_after(value: str | None, default: float) -> float:
    """The server's Retry-After in seconds (capped), else `default`."""
    try:
        seconds = float(value) if value is not None else default
    except ValueError:
        return default
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S) if math.isfinite(seconds) else default


def reply_text(raw: bytes) -> str | None:
    """The first choice's message text of a chat completion.

    Raises: JudgeReplyError: the body is not a chat completion."""
    try:
        document = json.loads(raw)
        message = document["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise JudgeReplyError(f"the endpoint's answer is not a chat completion ({type(exc).__name__})") from None
    content = message.get("content") if isinstance(message, dict) else None
    if content is not None and not isinstance(content, str):
        raise JudgeReplyError(f"the reply's content is {type(content).__name__}, not text")
    return content


def judge_endpoint(environ: Mapping[str, str], *, disabled: bool = False) -> tuple[JudgeEndpoint | None, str]:
    """The endpoint the environment names, or (None, why none is asked)."""
    if disabled:
        return None, HOST_JUDGE
    base_url = environ.get(JUDGE_BASE_URL_ENV, "").strip()
    model = environ.get(JUDGE_MODEL_ENV, "").strip()
    if not base_url or not model:
        return None, NO_ENDPOINT
    if not base_url.lower().startswith(("http://", "https://")):
        return None, f"the judge endpoint in {JUDGE_BASE_URL_ENV} is not an http(s) URL"
    try:
        timeout = _timeout(float(environ.get(JUDGE_TIMEOUT_ENV, "")), DEFAULT_JUDGE_TIMEOUT_S)
    except ValueError:
        timeout = DEFAULT_JUDGE_TIMEOUT_S
    api_key = environ.get(JUDGE_API_KEY_ENV, "").strip() or None
    return JudgeEndpoint(base_url, model, api_key, timeout=timeout), ""


def judge_item(
    item: dict[str, Any], inputs: dict[str, Any], endpoint: JudgeEndpoint | None, reason: str = HOST_JUDGE
) -> dict[str, Any]:
    """A judge item's result: scored by `endpoint` (`passed` when q ≥ 0.5, else `failed`; q the
    judge's score), or `unscored` with the reason — no endpoint, no files, no answer, garbage."""
    entry: dict[str, Any] = {
        "id": item.get("id"),
        "method": item.get("method"),
        "weight": item.get("weight"),
        "status": "unscored",
        "q": None,
        "scored_by": None,
        "evidence": {"reason": reason},
        "error": None,
    }
    started = time.perf_counter()
    if endpoint is not None:
        entry.update(_judged(item, inputs, endpoint))
    entry["duration_s"] = round(time.perf_counter() - started, 6)
    return entry


def _judged(item: dict[str, Any], inputs: dict[str, Any], endpoint: JudgeEndpoint) -> dict[str, Any]:
    if inputs.get("error") or "files" not in inputs:
        problem = f"the judge's files could not be collected: {inputs.get('error') or 'nothing was collected'}"
        return {"evidence": {"reason": problem}, "error": problem}
    request = judge_request(item, inputs)
    read = [{k: f[k] for k in ("path", "bytes", "truncated", "binary")} for f in request["files"]]
    base: dict[str, Any] = {"judge": endpoint.name, "files_read": read}
    if request["missing"]:
        base["missing"] = request["missing"]
    try:
        verdict = parse_reply(endpoint.complete(judge_messages(request), seed=JUDGE_SEED))
    except JudgeReplyError as exc:
        problem = f"the judge returned garbage: {exc}"
    except JudgeCallError as exc:
        problem = f"the judge failed: {exc}"
    except Exception as exc:  # whatever else goes wrong leaves the item unscored, never the verifier broken
        problem = f"the judge failed: {type(exc).__name__}: {exc}"
    else:
        quotes = [
            {
                "path": quote["path"],
                "quote": quote["quote"][:MAX_QUOTE_CHARS],
                "found": quote_found(quote["path"], quote["quote"], request["files"]),
            }
            for quote in verdict["evidence"]
        ]
        score = verdict["score"]
        evidence = {
            **base,
            "scores": [score],
            "variance": 0.0,
            "seeds": [JUDGE_SEED],
            "quotes": quotes,
            "quotes_found": sum(1 for q in quotes if q["found"]),
            "reasoning": [verdict["reasoning"][:MAX_REASONING_CHARS]],
        }
        status = "passed" if score >= JUDGE_PASS_Q else "failed"
        return {"status": status, "q": score, "scored_by": "judge", "evidence": evidence}
    return {"evidence": {**base, "reason": problem}, "error": problem}


def verify(
    rubric: dict[str, Any],
    workspace: Path,
    tests_dir: Path,
    *,
    item_timeout: float = DEFAULT_ITEM_TIMEOUT_S,
    judge: JudgeEndpoint | None = None,
    judge_reason: str = HOST_JUDGE,
    budget_s: float = 0.0,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(results, judge inputs) for every item of `rubric` (a parsed rubric.json) on `workspace`;
    judge items asked of `judge`, or left unscored for `judge_reason`. `budget_s` (> 0): the
    seconds every check together may take; the checks a slow workspace leaves no time fail, so
    the verifier finishes within its own timeout whatever the workspace holds (a verifier that
    does not is an infrastructure error, which an agent must not be able to cause)."""
    started = time.perf_counter()
    clear_cache()
    deadline = time.monotonic() + budget_s if budget_s > 0 else None

    def time_left() -> float | None:
        return None if deadline is None else deadline - time.monotonic()

    checked = {
        index: score_item(item, workspace, tests_dir, item_timeout, time_left())
        for index, item in enumerate(rubric["items"])
        if item.get("method") != "llm_judge"
    }
    inputs = {
        item["id"]: collect_judge_inputs(workspace, item)
        for item in rubric["items"]
        if item.get("method") == "llm_judge"
    }
    items = [
        checked[index] if index in checked else judge_item(item, inputs[item["id"]], judge, judge_reason)
        for index, item in enumerate(rubric["items"])
    ]
    totals = weighted_reward((float(e["weight"]), e["status"], e["q"]) for e in items)
    reward = totals["reward"]
    results = {
        "schema_version": RESULTS_SCHEMA_VERSION,
        "status": "scored",
        "workspace": str(workspace),
        "verified_at": datetime.now(timezone.utc).isoformat(),  # noqa: UP017 — runs on Python 3.10 too
        "python": platform.python_version(),
        "duration_s": round(time.perf_counter() - started, 6),
        **totals,
        "full_credit": bool(totals["complete"] and reward is not None and reward >= FULL_CREDIT_AT),
        "pass_threshold": rubric.get("pass_threshold"),
        "judge": {"model": judge.model} if judge is not None else {"model": None, "reason": judge_reason},
        "items": items,
    }
    return results, inputs


def reward_document(results: dict[str, Any]) -> dict[str, float]:
    """Harbor's reward.json: `{"reward": r}` only — r over the whole rubric weight, an unscored item
    counting 0, so always a number (0 for an empty rubric). Per-item results are in results.json."""
    reward = results.get("reward")
    number = float(reward) if isinstance(reward, (int, float)) and math.isfinite(reward) else 0.0
    return {"reward": min(1.0, max(0.0, number))}


def write_json(path: Path, value: Any) -> None:
    """Write through a temporary file and rename, so a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.tmp")
    # ASCII escapes: a lone surrogate from a rubric param or a file name cannot stop the write
    temporary.write_text(json.dumps(value, indent=1, ensure_ascii=True, default=repr) + "\n", encoding="utf-8")
    temporary.chmod(0o644)
    temporary.replace(path)


def write_outputs(out_dir: Path, results: dict[str, Any], inputs: dict[str, Any]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / JUDGE_INPUTS_FILE, inputs)
    write_json(out_dir / RESULTS_FILE, results)
    write_json(out_dir / REWARD_FILE, reward_document(results))


# -- batch mode: the host's candidate workspaces, one after another in one process ------------------


class BatchUnsupported(RuntimeError):
    """This process cannot load candidates as the host's copy-in would."""


def read_manifest(candidates: Path) -> list[tuple[str, bool, bool]]:
    """(name, copy, late) of every candidate listed in `candidates/batch.json`, in order."""
    document = json.loads((candidates / BATCH_MANIFEST).read_bytes())
    entries = document.get("candidates") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"{BATCH_MANIFEST} is an object with a list of candidates")
    listed = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not CANDIDATE_NAME.match(name):
            raise ValueError(f"a candidate's name must be a plain folder name without dots, not {name!r}")
        listed.append((name, entry.get("copy") is not False, entry.get("late") is True))
    if len({name for name, _, _ in listed}) != len(listed):
        raise ValueError("candidate names repeat")
    return listed


def await_candidate(candidates: Path, name: str, limit: float) -> bool | None:
    """A late candidate's `copy` once the host has copied it in and written `<name>.ready` ("copy" or
    "empty"); None when the host wrote `<name>.absent` or wrote nothing within `limit` seconds."""
    deadline = time.monotonic() + limit
    ready, absent = candidates / f"{name}.ready", candidates / f"{name}.absent"
    while True:
        if ready.is_file():
            return ready.read_text(encoding="utf-8").strip() != "empty"
        if absent.exists() or time.monotonic() >= deadline:
            return None
        time.sleep(WAIT_POLL_S)


def workspace_owner(workspace: Path) -> tuple[int, int] | None:
    """The (uid, gid) to give loaded files, or None when this process creates them so already.

    Raises: BatchUnsupported: this process cannot create a file in the workspace and give it the
    workspace's owner."""
    info = workspace.stat()
    owner = (info.st_uid, info.st_gid)
    needed = None if owner == (os.geteuid(), os.getegid()) else owner
    probe = workspace / f".skill2env-batch-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600))
        try:
            if needed is not None:
                os.chown(probe, *needed, follow_symlinks=False)
        finally:
            probe.unlink()
    except OSError as exc:
        raise BatchUnsupported(f"cannot create files owned like the workspace's in {workspace}: {exc}") from exc
    return needed


# Relative to directory descriptors (`dir_fd`): no path is resolved twice, and no pathlib objects
# for the few hundred files a candidate holds.
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def empty_workspace(workspace: Path) -> None:
    """Remove everything under `workspace` (not the folder itself), closed folders included."""
    fd = os.open(workspace, _DIRECTORY)
    try:
        _empty(fd)
    finally:
        os.close(fd)


def _empty(folder: int) -> None:
    with os.scandir(folder) as entries:
        listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    for name, is_folder in listed:
        if not is_folder:
            os.unlink(name, dir_fd=folder)
            continue
        os.chmod(name, 0o700, dir_fd=folder)  # a folder (not a link) this process owns, closed or not
        child = os.open(name, _DIRECTORY, dir_fd=folder)
        try:
            _empty(child)
        finally:
            os.close(child)
        os.rmdir(name, dir_fd=folder)


def load_candidate(source: Path, workspace: Path, owner: tuple[int, int] | None, *, copy: bool = True) -> list[str]:
    """Empty `workspace`, then (when `copy`) copy `source`'s regular files and folders into it as
    `shutil.copytree(source, workspace, dirs_exist_ok=True)` does (contents; modes, times and
    extended attributes as `shutil.copystat` copies them; the workspace folder takes the source
    folder's); returns the refused paths."""
    empty_workspace(workspace)
    refused: list[str] = []
    if copy:
        mode = _open_for_owner(str(source), None, stat.S_IRUSR | stat.S_IXUSR)
        source_fd, target_fd = os.open(source, _DIRECTORY), os.open(workspace, _DIRECTORY)
        try:
            _copy_folder(source_fd, target_fd, owner, refused, "")
            _finish(source_fd, target_fd, mode, owner)
        finally:
            os.close(source_fd)
            os.close(target_fd)
    return refused


def _open_for_owner(name: str, folder: int | None, needed: int) -> int:
    """Give this process (the owner) the `needed` bits on a candidate's own entry; returns its mode
    as it was."""
    mode = stat.S_IMODE(os.lstat(name, dir_fd=folder).st_mode)
    if mode & needed != needed:
        os.chmod(name, mode | needed, dir_fd=folder)  # a regular file or folder: lstat said so
    return mode


def _finish(source: int, target: int, mode: int, owner: tuple[int, int] | None) -> None:
    """`shutil.copystat` on descriptors (times, extended attributes, mode), then the owner."""
    info = os.fstat(source)
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    try:
        for name in os.listxattr(source):
            try:
                os.setxattr(target, name, os.getxattr(source, name))
            except OSError as exc:  # as copystat: attributes the target cannot take are skipped
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.ENODATA, errno.EINVAL, errno.EACCES):
                    raise
    except OSError as exc:
        if exc.errno not in (errno.ENOTSUP, errno.ENODATA, errno.EINVAL):
            raise
    os.chmod(target, mode)
    if owner is not None:
        os.chown(target, *owner)


def _copy_folder(source: int, target: int, owner: tuple[int, int] | None, refused: list[str], prefix: str) -> None:
    with os.scandir(source) as entries:
        listed = sorted((entry.name, entry.stat(follow_symlinks=False).st_mode) for entry in entries)
    for name, kind in listed:
        if stat.S_ISDIR(kind):
            mode = _open_for_owner(name, source, stat.S_IRUSR | stat.S_IXUSR)
            os.mkdir(name, dir_fd=target)
            child_source, child_target = (
                os.open(name, _DIRECTORY, dir_fd=source),
                os.open(name, _DIRECTORY, dir_fd=target),
            )
            try:
                _copy_folder(child_source, child_target, owner, refused, f"{prefix}{name}/")
                _finish(child_source, child_target, mode, owner)
            finally:
                os.close(child_source)
                os.close(child_target)
        elif stat.S_ISREG(kind):
            mode = _open_for_owner(name, source, stat.S_IRUSR)
            reader = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=source)
            try:
                writer = os.open(
                    name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=target
                )
                try:
                    while os.sendfile(writer, reader, None, 1 << 30) > 0:
                        pass
                    _finish(reader, writer, mode, owner)
                finally:
                    os.close(writer)
            finally:
                os.close(reader)
        else:  # links and special files are never data
            refused.append(prefix + name)


def drop_capabilities() -> None:
    """Clear this process's capability sets (effective, permitted, inheritable), as a verifier root
    without capabilities has them: a sandbox that granted the loader some runs the checks without.

    Raises: OSError: the kernel refused (the candidate is then not verified here)."""
    import ctypes  # only here: batch mode on a backend whose root needed capabilities to load

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    libc = ctypes.CDLL(None, use_errno=True)
    header, data = Header(CAPABILITY_VERSION_3, 0), (Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"dropping capabilities failed: {os.strerror(error)}")


def write_error(out_dir: Path, error: str) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / RESULTS_FILE, {"schema_version": RESULTS_SCHEMA_VERSION, "status": "error", "error": error})


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description="Score a rubric's items on a workspace.")
    parser.add_argument("--rubric", type=Path, default=here / "rubric.json")
    parser.add_argument(
        "--workspace", type=Path, default=Path(os.environ.get("SKILL2ENV_WORKSPACE", DEFAULT_WORKSPACE))
    )
    parser.add_argument("--out", type=Path, default=Path(DEFAULT_OUT))
    parser.add_argument("--item-timeout", type=float, default=DEFAULT_ITEM_TIMEOUT_S)
    parser.add_argument(
        "--time-budget", type=float, default=0.0, help="seconds for every check together (0: no budget)"
    )
    parser.add_argument("--batch", type=Path, default=None, help="a folder of candidate workspaces (batch mode)")
    parser.add_argument("--candidate-timeout", type=float, default=0.0, help="batch mode: seconds per candidate")
    parser.add_argument("--wait-timeout", type=float, default=0.0, help="batch mode: seconds to wait for a late one")
    parser.add_argument(
        "--drop-capabilities",
        action="store_true",
        help="batch mode: each candidate's process drops every capability once loaded, before any check runs",
    )
    parser.add_argument(
        NO_JUDGE_FLAG,
        dest="no_judge",
        action="store_true",
        help="never ask a judge endpoint, even one the environment names (the host's judge role scores judge items)",
    )
    args = parser.parse_args(argv)
    judge, judge_reason = judge_endpoint(os.environ, disabled=args.no_judge)
    try:
        raw = args.rubric.read_bytes()
        rubric = json.loads(raw)
        if not isinstance(rubric, dict) or not isinstance(rubric.get("items"), list):
            raise ValueError("a rubric is an object with a list of items")
    except (OSError, ValueError) as exc:
        args.out.mkdir(parents=True, exist_ok=True)
        write_json(
            args.out / RESULTS_FILE, {"schema_version": RESULTS_SCHEMA_VERSION, "status": "error", "error": str(exc)}
        )
        print(f"verify: cannot read the rubric {args.rubric}: {exc}", file=sys.stderr)
        return EXIT_BAD_RUBRIC
    if args.batch is not None:
        try:
            candidates = read_manifest(args.batch)
            owner = workspace_owner(args.workspace)
        except (OSError, ValueError, BatchUnsupported) as exc:
            print(f"verify: batch mode is not possible here: {type(exc).__name__}: {exc}", file=sys.stderr)
            return EXIT_BATCH_UNSUPPORTED
        verified = 0
        # Checks may keep what they computed from inputs they hash in full, for the next candidates (memo).
        memo = tempfile.mkdtemp(prefix="skill2env-check-memo-")
        os.environ[MEMO_ENV] = memo
        warm_up(rubric["items"])  # the imports every candidate's fresh child would otherwise repeat
        for name, listed_copy, late in candidates:
            copy = await_candidate(args.batch, name, args.wait_timeout) if late else listed_copy
            if copy is None:
                print(f"verify: candidate {name} did not come", file=sys.stderr)
                continue
            # One child per candidate, forked before anything was verified: nothing a check (or the
            # rubric's own Python) leaves in the process can reach the next candidate's verdict.
            child = os.fork()
            if child == 0:
                status = 1
                try:
                    loading = time.perf_counter()
                    try:
                        refused = load_candidate(args.batch / name, args.workspace, owner, copy=copy)
                        if args.drop_capabilities:
                            drop_capabilities()
                    except OSError as exc:
                        write_error(args.out / name, f"loading the candidate failed: {type(exc).__name__}: {exc}")
                    else:
                        started = time.perf_counter()
                        # Called from here, as in the single mode, so every check runs at the same stack depth.
                        results, inputs = verify(
                            rubric,
                            args.workspace,
                            args.rubric.parent,
                            item_timeout=args.item_timeout,
                            judge=judge,
                            judge_reason=judge_reason,
                        )
                        results["rubric_sha256"] = hashlib.sha256(raw).hexdigest()
                        results.update(candidate=name, refused=refused, load_s=round(started - loading, 6))
                        write_outputs(args.out / name, results, inputs)
                        status = 0
                finally:
                    os._exit(status)
            try:
                with time_limit(args.candidate_timeout):
                    _, waited = os.waitpid(child, 0)
            except CheckTimeout:
                os.kill(child, signal.SIGKILL)
                _, waited = os.waitpid(child, 0)
                print(f"verify: candidate {name} ran past {args.candidate_timeout:g} s", file=sys.stderr)
            verified += os.WIFEXITED(waited) and os.WEXITSTATUS(waited) == 0
        shutil.rmtree(memo, ignore_errors=True)
        try:
            empty_workspace(args.workspace)
        except OSError as exc:
            print(f"verify: emptying the workspace after the batch failed: {exc}", file=sys.stderr)
        print(f"verify: batch of {len(candidates)} candidates, {verified} verified")
        return EXIT_OK
    results, inputs = verify(
        rubric,
        args.workspace,
        args.rubric.parent,
        item_timeout=args.item_timeout,
        judge=judge,
        judge_reason=judge_reason,
        budget_s=args.time_budget,
    )
    results["rubric_sha256"] = hashlib.sha256(raw).hexdigest()
    write_outputs(args.out, results, inputs)
    shown = reward_document(results)["reward"]
    state = "full credit" if results["full_credit"] else "complete" if results["complete"] else "incomplete"
    print(f"verify: reward {shown:.4f}, {state} (scored weight {results['scored_weight']:.4f}; {results['counts']})")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
