"""The rubric's hidden test suite: the generated package's ground-truth behaviour, run on the agent's code.

The verifier runs this file as the inline source of a `python` check (standard library only), so the
cases and their expected results live in the rubric, which the agent never sees. `check(workspace,
args)` with args

* `package`: the package folder's name in the workspace;
* `cases`: `[module, function, args, kwargs, expected]`, where `expected` is the JSON form of the
  result, or `{"raises": "<ExceptionName>"}`;
* `api` (optional): `{function: [module, [parameter names]]}`, the public signatures to keep;
* `present` (optional): deliverables that must be there as non-empty regular files;
* `unchanged` (optional): `{path: sha256}`, files (the vendored dependency) that must keep their bytes.

Nothing the agent wrote runs in this process. Only a copy of the package folder is put on the path of
a fresh interpreter started isolated and without site (`python -I -S`: no PYTHONPATH, no user or
site packages, no sitecustomize, no .pth files), in an empty temporary folder, with a time limit, in a
new session whose leftovers are killed, and as the workspace's owner when the verifier runs as root.
That interpreter only calls the functions and reports what they returned; the expected results stay
here and are compared here. Visible tests, conftest.py files or a test runner in the workspace play
no part, so editing them earns nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TIMEOUT_S = 60
MAX_OUTPUT = 4 << 20
SHOWN = 10
RUNNER = r"""
import importlib, inspect, json, sys
lib, cases_path, out_path = sys.argv[1:4]
sys.path.insert(0, lib)
sys.dont_write_bytecode = True
spec = json.load(open(cases_path, encoding="utf-8"))
results, api = [], {}


def plain(value):
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return {"repr": repr(value)[:200]}


for module, function, args, kwargs in spec["calls"]:
    try:
        target = getattr(importlib.import_module(spec["package"] + "." + module), function)
        results.append({"value": plain(target(*args, **kwargs))})
    except BaseException as exc:
        results.append({"raises": type(exc).__name__})
for function, (module, _) in spec["api"].items():
    try:
        target = getattr(importlib.import_module(spec["package"] + "." + module), function)
        api[function] = list(inspect.signature(target).parameters)
    except BaseException as exc:
        api[function] = "unavailable: " + type(exc).__name__
with open(out_path, "w", encoding="utf-8") as handle:
    json.dump({"results": results, "api": api}, handle)
"""


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if isinstance(expected, float) and isinstance(actual, int | float):
        return math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9) and isinstance(actual, float)
    if isinstance(expected, int) and isinstance(actual, int | float):
        return type(actual) is int and actual == expected
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(_same(a, e) for a, e in zip(actual, expected, strict=True))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(_same(actual[k], expected[k]) for k in expected)
    return bool(actual == expected)


def _digest(path: Path) -> str | None:
    if path.is_symlink() or not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _copy_package(source: Path, target: Path) -> None:
    """The package folder's regular files and folders only (no links: nothing outside is read)."""
    for current, dirs, names in os.walk(source):
        here = Path(current)
        rel = here.relative_to(source)
        (target / rel).mkdir(parents=True, exist_ok=True)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink() and d != "__pycache__"]
        for name in names:
            path = here / name
            if not path.is_symlink() and path.is_file() and not name.endswith((".pyc", ".pth")):
                shutil.copyfile(path, target / rel / name)


def _owner(workspace: Path) -> tuple[int, int] | None:
    """The workspace owner's ids, to run the agent's code as them when the verifier runs as root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    info = workspace.stat()
    return (info.st_uid, info.st_gid) if info.st_uid != 0 else None


def _start(command: list[str], cwd: str, env: dict[str, str], owner: tuple[int, int] | None) -> Any:
    """The runner in a new session, as `owner` when given and allowed."""
    options: dict[str, Any] = {
        "cwd": cwd,
        "env": env,
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.PIPE,
        "start_new_session": True,
    }
    if owner:
        try:
            return subprocess.Popen(command, user=owner[0], group=owner[1], extra_groups=[], **options)
        except OSError:  # no permission to change user: run as the verifier's user
            pass
    return subprocess.Popen(command, **options)


def _tree_bytes(folder: Path) -> list[bytes]:
    """Every folder's and file's path under `folder`, and each file's bytes, in a fixed order."""
    parts = []
    for current, dirs, names in os.walk(folder):
        dirs.sort()
        here = Path(current)
        parts.append(b"d:" + here.relative_to(folder).as_posix().encode("utf-8", "surrogateescape"))
        for name in sorted(names):
            parts += [b"f:" + name.encode("utf-8", "surrogateescape"), (here / name).read_bytes()]
    return parts


def _remembered(inputs: list[bytes], compute: Any) -> dict[str, Any]:
    """The run through the check library's memo where there is one (the verifier's batch mode keeps
    runs across candidate workspaces, keyed by `inputs`: everything the run reads); else computed."""
    keep = globals().get("remembered")  # given to inline checks by the verifier's python check
    return compute() if keep is None else keep("hidden-tests", inputs, compute)


def _run(workspace: Path, package: str, calls: list[Any], api: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hidden-tests-") as tmp:
        root = Path(tmp)
        lib = root / "lib"
        _copy_package(workspace / package, lib / package)
        (root / "runner.py").write_text(RUNNER, encoding="utf-8")
        (root / "calls.json").write_text(json.dumps({"package": package, "calls": calls, "api": api}), "utf-8")
        owner = _owner(workspace)
        inputs = [RUNNER.encode(), (root / "calls.json").read_bytes(), repr(owner).encode(), *_tree_bytes(lib)]
        return _remembered(inputs, lambda: _exercise(root, lib, owner))


def _exercise(root: Path, lib: Path, owner: tuple[int, int] | None) -> dict[str, Any]:
    """Run the runner on the package copy under `lib`, its calls in `root`, as `owner` when given."""
    out = root / "out" / "results.json"
    out.parent.mkdir()
    if owner:
        try:
            for current, _, names in os.walk(root):
                for name in [".", *names]:
                    os.chown(Path(current, name), *owner)
        except OSError:  # a root without the capability (a user namespace): run as it is
            owner = None
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(root)}
    command = [sys.executable, "-I", "-S", str(root / "runner.py"), str(lib), str(root / "calls.json"), str(out)]
    process = _start(command, str(root), env, owner)
    try:
        _, stderr = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stderr = b"timed out"
    finally:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    if not out.is_file() or out.is_symlink() or out.stat().st_size > MAX_OUTPUT:
        tail = (stderr or b"").decode("utf-8", "replace")[-400:]
        return {"error": f"the package could not be exercised: {tail}"}
    data = json.loads(out.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {"error": "unreadable results"}


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    package = str(args["package"])
    cases = list(args.get("cases") or [])
    api = dict(args.get("api") or {})
    problems: list[str] = []
    changed = [p for p, digest in sorted(dict(args.get("unchanged") or {}).items()) if _digest(workspace / p) != digest]
    if changed:
        problems.append(f"{len(changed)} file(s) that must stay as shipped were changed: {changed[:SHOWN]}")
    missing = [p for p in args.get("present") or [] if (workspace / p).is_symlink() or not (workspace / p).is_file()
               or not (workspace / p).stat().st_size]  # fmt: skip
    if missing:
        problems.append(f"missing deliverable(s): {missing}")
    source = workspace / package
    if source.is_symlink() or not (source / "__init__.py").is_file():
        return False, {"summary": f"no package folder {package} in the workspace", "changed": changed}
    ran = _run(workspace, package, [case[:4] for case in cases], api)
    if "error" in ran:
        return False, {"summary": str(ran["error"]), "changed": changed}
    results = ran.get("results") or []
    failed = []
    for case, result in zip(cases, results, strict=False):
        expected = case[4]
        ok = (
            isinstance(result, dict) and result.get("raises") == expected["raises"]
            if isinstance(expected, dict) and "raises" in expected
            else isinstance(result, dict) and "value" in result and _same(result["value"], expected)
        )
        if not ok:
            failed.append(f"{case[0]}.{case[1]}(*{case[2]!r}, **{case[3]!r})")
    if len(results) != len(cases):
        failed.append(f"{len(cases) - len(results)} case(s) without a result")
    if failed:
        problems.append(f"{len(failed)} of {len(cases)} hidden test case(s) failed")
    signatures = ran.get("api") or {}
    broken = [name for name, (_, params) in sorted(api.items()) if signatures.get(name) != params]
    if broken:
        problems.append(f"the public API changed: {broken}")
    return not problems, {
        "summary": "; ".join(problems) or f"all {len(cases)} hidden test case(s) pass, the API and shipped files kept",
        "failed": failed[:SHOWN],
        "api_changed": broken[:SHOWN],
        "changed": changed[:SHOWN],
    }
