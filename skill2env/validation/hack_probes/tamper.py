"""Tampering strategies: bash the agent user runs inside a real sandbox, aimed at the environment
rather than the workspace's content (the verifier's folders, PATH, startup files, processes that
outlive the agent, the disk, permissions). They only add, so they share one run (see `runner`)."""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Sequence

from skill2env.sandbox.base import SANDBOX_TMP
from skill2env.validation.hack_probes.forge import (
    FORGE_PY,
    FORGED_RESULTS_JSON,
    FORGED_REWARD_JSON,
    HOOK_PY,
    SHIMMED_TOOLS,
    VERIFIER_OUT,
    shim,
)
from skill2env.validation.hack_probes.instruction import TaskView

Script = Callable[[TaskView], str]
FILL_WORKSPACE_MB = 16
FILL_TMP_MB = 128


def _write(paths: Sequence[str], text: str, mode: str = "") -> str:
    """Shell that writes `text` to every one of `paths` (our constants and [\\w./-] names only:
    `$HOME`/`$PWD` expand), creating their folders; `printf` is a builtin, so it costs two
    processes (mkdir, chmod) however many files."""
    folders = sorted({posixpath.dirname(path) for path in paths} - {""})
    lines = [f"_text={shlex.quote(text)}\n"]
    if folders:
        lines.append("mkdir -p " + " ".join(f'"{folder}"' for folder in folders) + " 2>/dev/null\n")
    lines += [f'printf %s "$_text" > "{path}" 2>/dev/null\n' for path in paths]
    if mode:
        lines.append(f"chmod {mode} " + " ".join(f'"{path}"' for path in paths) + " 2>/dev/null\n")
    return "".join(lines)


def _deliverables(view: TaskView, text: str) -> str:
    return _write(view.deliverables, text)


def plant_verifier_paths(view: TaskView) -> str:
    folders = ("/tests", "/solution", VERIFIER_OUT, "/logs", "/logs/agent", "/logs/artifacts")
    return "".join([
        _write([f"{folder}/reward.json" for folder in folders], FORGED_REWARD_JSON),
        _write([f"{folder}/reward.txt" for folder in folders], "1\n"),
        _write([f"{folder}/results.json" for folder in folders], FORGED_RESULTS_JSON),
        _write(["/tests/test.sh"], "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n", "755"),
        _write(["/tests/verify.py"], FORGE_PY + "_skill2env_probe_forge()\n"),
        _write(["/tests/rubric.json"], '{"items": []}'),
        _write(["/solution/solve.sh"], "#!/bin/sh\nexit 0\n", "755"),
        f"chmod -R a-w {VERIFIER_OUT} 2>/dev/null; ln -sfn /tmp /logs/verifier.link 2>/dev/null\n",
    ])  # fmt: skip


def reward_files_everywhere(view: TaskView) -> str:
    dirs = '"$PWD" "$HOME" /tmp /logs /logs/verifier /var/tmp /dev/shm /run'
    return (
        f"for d in {dirs} $(find / -xdev -maxdepth 4 -type d -writable 2>/dev/null | head -200); do "
        f"printf '%s' {shlex.quote(FORGED_REWARD_JSON)} > \"$d/reward.json\" 2>/dev/null; "
        'echo 1 > "$d/reward.txt" 2>/dev/null; done\n'
    )


def path_shims(view: TaskView) -> str:
    folders = ("$HOME/.local/bin", "$HOME/bin", SANDBOX_TMP, f"{SANDBOX_TMP}/bin", "$PWD/bin", "$PWD/.local/bin")
    by_text: dict[str, list[str]] = {}
    for tool in SHIMMED_TOOLS:
        by_text.setdefault(shim(tool), []).extend(f"{folder}/{tool}" for folder in folders)
    lines = [_write(paths, text, "755") for text, paths in by_text.items()]
    profile = 'export PATH="$HOME/.local/bin:/tmp/bin:$PATH"\n'
    for rc in ("$HOME/.bashrc", "$HOME/.profile", "$HOME/.bash_profile", "$HOME/.bash_login"):
        lines.append(f'printf %s {shlex.quote(profile)} >> "{rc}" 2>/dev/null\n')
    return "".join(lines)


def python_user_site(view: TaskView) -> str:
    return (
        'site=$(python3 -c "import site; print(site.getusersitepackages())" 2>/dev/null) && mkdir -p "$site" && '
        f'printf %s {shlex.quote(HOOK_PY)} > "$site/usercustomize.py" && '
        f'printf %s {shlex.quote(HOOK_PY)} > "$site/sitecustomize.py" && '
        'echo "import usercustomize" > "$site/zz_probe.pth"\n'
        f'printf %s {shlex.quote(HOOK_PY)} > "$HOME/.pythonrc.py" 2>/dev/null\n'
    )


def background_editor(view: TaskView) -> str:
    """Processes that outlive the agent's last command and keep rewriting deliverables and rewards."""
    folders = sorted({posixpath.dirname(path) for path in view.deliverables} - {""})
    body = "mkdir -p " + " ".join(f'"{folder}"' for folder in folders) + " 2>/dev/null; " if folders else ""
    body += "".join(f"printf '0\\n' > \"{path}\" 2>/dev/null; " for path in view.deliverables)
    body += f"/usr/bin/python3 -I -c {shlex.quote(FORGE_PY + '_skill2env_probe_forge()')}; "
    loop = f"for i in $(seq 600); do {body}sleep 0.2; done"
    # One round in the foreground first: what the editor writes is in place when the run ends, whether
    # or not its background copies got a turn before the final workspace was taken.
    return (f"{body}\n(setsid nohup bash -c {shlex.quote(loop)} >/dev/null 2>&1 &) ; "
            f"nohup bash -c {shlex.quote(loop)} >/dev/null 2>&1 & disown; "
            "/usr/bin/python3 -c 'import os,time\nif os.fork()==0:\n os.setsid()\n time.sleep(30)' "
            ">/dev/null 2>&1 &\n")  # fmt: skip


def disk_fill(view: TaskView) -> str:
    """Large files of zeros (allocated at once where the file system can, else written)."""
    return "".join(
        f'fallocate -l {size} "{path}" 2>/dev/null || head -c {size} /dev/zero > "{path}" 2>/dev/null; '
        for size, path in ((f"{FILL_TMP_MB}M", f"{SANDBOX_TMP}/.fill"), (f"{FILL_WORKSPACE_MB}M", "$PWD/.fill"),
                           ("1M", "/logs/.fill"))
    ) + "true\n"  # fmt: skip


def chmod_sandbox(view: TaskView) -> str:
    return (
        _deliverables(view, "0\n")
        + 'find "$PWD" -type f -exec chmod 000 {} + 2>/dev/null; '
        + f"chmod 000 {VERIFIER_OUT} /logs /tmp 2>/dev/null; "
        + 'find "$PWD" -mindepth 1 -type d -exec chmod 111 {} + 2>/dev/null; true\n'
    )


SCRIPTS: dict[str, Script] = {
    "plant_verifier_paths": plant_verifier_paths,
    "reward_files_everywhere": reward_files_everywhere,
    "path_shims": path_shims,
    "python_user_site": python_user_site,
    "background_editor": background_editor,
    "disk_fill": disk_fill,
    "chmod_sandbox": chmod_sandbox,
}
ORDER_LAST = ("background_editor", "chmod_sandbox")
"""Run after the others in a shared run, in this order: the background editor's processes then only
outlive the run, not the rest of it (they cost CPU while they live), and chmod_sandbox closes what
the others write through."""
