"""Declared packages: checked against the package indexes before a build, installed at build time.

A task's Dockerfile installs what its blueprint declares in `RUN` lines marked with `DECLARED`.
Harbor builds them as they are (with its own network). Here task images build offline, so the
marked lines run in a packages stage instead: a container from the `FROM` image with the network
on and the host's package configuration (index URLs, the CA bundle a proxy needs) mounted and
passed for that one command, committed as `skill2env-packages:<digest>`. The image then builds
`FROM` that stage without the marked lines and runs with the network the task asks for (none by
default). Nothing of the host's configuration is in the image: the CA bundle and the variables are
copied into the container as files before it starts, read by the install command and deleted by it
(files created and deleted in one layer leave no trace in it); the container's own environment and
command hold nothing of them. Stages are cached by the digest of their base image and lines.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from skill2env.sandbox.errors import ImageBuildError

if TYPE_CHECKING:
    import docker

DECLARED = "# skill2env: declared packages"
"""The comment above the `RUN` lines that install a task's declared packages."""
INSTALLS = re.compile(
    r"\b(?:pip3?|python3? -m pip|uv pip|apt-get|apt|npm|yarn|gem|cargo)\s+(?:-\S+\s+)*(?:install|add)\b"
)
"""A `RUN` line that installs packages (and so needs the package indexes)."""
PACKAGES_REPOSITORY = "skill2env-packages"
DIGEST_LABEL = "org.skill2env.packages-digest"
BUILD_DIR = "/tmp/skill2env-build"  # noqa: S108 (a fixed path inside the build container)
CA_FILE = f"{BUILD_DIR}/ca.crt"
STAGE_RECIPE = 2
"""Part of every stage's digest: raise it when the way stages are made changes."""
INSTALL_TIMEOUT_S = 900
LOG_TAIL = 40
RESOLVE_TIMEOUT_S = 120
NPM_REGISTRY = "https://registry.npmjs.org/"
logger = logging.getLogger(__name__)

Log = Callable[[str], None]


@dataclass(frozen=True)
class HostPackageConfig:
    """What the host uses to reach package indexes, as a build container can use it."""

    environment: dict[str, str] = field(default_factory=dict)
    """Variables for the install command (pip's index URLs and CA bundle, proxies)."""
    ca_bundle: Path | None = None
    """The host's CA bundle, copied to `CA_FILE` for the install command when pip or a proxy needs it."""

    def files(self) -> bytes:
        """A tar of `BUILD_DIR`: the CA bundle and `env`, the variables as a shell file to source."""
        exports = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in sorted(self.environment.items()))
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as archive:
            folder = tarfile.TarInfo(Path(BUILD_DIR).name)
            folder.type, folder.mode = tarfile.DIRTYPE, 0o755
            archive.addfile(folder)
            _add(archive, f"{folder.name}/env", exports.encode())
            if self.ca_bundle is not None:
                _add(archive, f"{folder.name}/ca.crt", self.ca_bundle.read_bytes())
        return buffer.getvalue()

    @classmethod
    def of_host(cls) -> HostPackageConfig:
        """pip's index settings (`pip config list` and `PIP_*`), npm's registry, the CA bundle and the proxy variables.
        Local paths (file:// indexes, find-links) are left out: a container cannot read them."""
        settings = {**_pip_config(), **{k: v for k, v in os.environ.items() if k.startswith("PIP_")}}
        # an imported Dockerfile's `pip install` assumed its own base image's pip; Debian's refuses without this
        environment: dict[str, str] = {"PIP_BREAK_SYSTEM_PACKAGES": "1", "DEBIAN_FRONTEND": "noninteractive"}
        for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
            reachable = [url for url in settings.get(name, "").split() if url.startswith(("http://", "https://"))]
            if reachable:
                environment[name] = " ".join(reachable)
        if settings.get("PIP_TRUSTED_HOST"):
            environment["PIP_TRUSTED_HOST"] = settings["PIP_TRUSTED_HOST"]
        environment["NPM_CONFIG_REGISTRY"] = npm_registry()
        for name in ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"):
            if os.environ.get(name):
                environment[name] = os.environ[name]
        cert = settings.get("PIP_CERT") or os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("SSL_CERT_FILE")
        bundle = Path(cert) if cert and Path(cert).is_file() else None
        if bundle is not None:
            environment |= {"PIP_CERT": CA_FILE, "REQUESTS_CA_BUNDLE": CA_FILE, "NODE_EXTRA_CA_CERTS": CA_FILE}
        return cls(environment, bundle)


def _pip_config() -> dict[str, str]:
    """`pip config list` as `PIP_<KEY>` variables (global and install sections)."""
    try:
        listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                                timeout=30, check=False).stdout  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return {}
    settings = {}
    for line in listed.splitlines():
        match = re.match(r"^(global|install)\.([a-z-]+)='(.*)'$", line.strip())
        if match:
            settings["PIP_" + match[2].upper().replace("-", "_")] = match[3]
    return settings


# -- the Dockerfile side --------------------------------------------------------------------------


def declared_lines(apt: Sequence[str], pip: Sequence[str], npm: Sequence[str] = ()) -> list[str]:
    """The marked `RUN` lines that install declared packages (none when nothing is declared)."""
    lines = []
    apt_all = sorted(set(apt) | ({"npm"} if npm else set()))
    if apt_all:
        lines.append("RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
                     f"--no-install-recommends {' '.join(apt_all)} && rm -rf /var/lib/apt/lists/*")  # fmt: skip
    if pip:
        lines.append(f"RUN python3 -m pip install --no-cache-dir --break-system-packages {' '.join(sorted(set(pip)))}")
    if npm:
        lines.append(f"RUN npm install --global --no-fund --no-audit {' '.join(sorted(set(npm)))}")
    return [DECLARED, *lines] if lines else []


@dataclass(frozen=True)
class SplitDockerfile:
    base: str
    """The first `FROM` image."""
    installs: list[str]
    """The shell commands of the marked `RUN` lines, in order."""
    rest: list[str]
    """Every other line, the `FROM` line first."""


def split_declared(dockerfile: str) -> SplitDockerfile | None:
    """The Dockerfile's install lines apart from the rest, or None when it has none: the marked ones,
    and in a Dockerfile written elsewhere (an imported task's) every `RUN` that installs packages
    before the first `COPY` / `ADD` (it can need nothing from the build context)."""
    lines = dockerfile.splitlines()
    installs, rest, marked, copied = [], [], False, False
    for line in lines:
        if line.strip() == DECLARED:
            marked = True
            continue
        copied = copied or line.upper().startswith(("COPY ", "ADD "))
        if line.startswith("RUN ") and (marked or (not copied and INSTALLS.search(line))):
            installs.append(line.removeprefix("RUN ").strip())
            continue
        marked = False
        rest.append(line)
    base = next((line.split()[1] for line in rest if line.upper().startswith("FROM ") and len(line.split()) > 1), "")
    if not installs or not base:
        return None
    return SplitDockerfile(base, installs, rest)


def with_packages_stage(split: SplitDockerfile, stage: str) -> str:
    """The Dockerfile built on the packages stage: its first `FROM` replaced, the marked lines gone."""
    lines, replaced = [], False
    for line in split.rest:
        if not replaced and line.upper().startswith("FROM "):
            line, replaced = f"FROM {stage}", True
        lines.append(line)
    return "\n".join(lines) + "\n"


# -- the engine side ------------------------------------------------------------------------------


def ensure_packages_stage(
    client: docker.DockerClient,
    split: SplitDockerfile,
    config: HostPackageConfig | None = None,
    *,
    log: Log | None = None,
    timeout_s: int = INSTALL_TIMEOUT_S,
) -> str:
    """The committed image with `split.installs` run over `split.base`, built now unless cached.

    Raises:
        ImageBuildError: an install command failed (the message holds its log's tail) or timed out.
    """
    from docker.errors import ImageNotFound

    base_id = str(client.images.get(split.base).id)
    digest = hashlib.sha256(json.dumps([STAGE_RECIPE, base_id, split.installs]).encode()).hexdigest()
    tag = f"{PACKAGES_REPOSITORY}:{digest[:16]}"
    try:
        if client.images.get(tag).labels.get(DIGEST_LABEL) == digest:
            return tag
    except ImageNotFound:
        pass
    config = config or HostPackageConfig.of_host()
    if log:
        log(f"installing declared packages into {tag}")
    installs = " && ".join(f"( {install} )" for install in split.installs)
    command = f". {BUILD_DIR}/env && {installs} && rm -rf {BUILD_DIR}"
    container = client.containers.create(split.base, command=["sh", "-c", command], user="root",
                                         network_mode="bridge")  # fmt: skip
    try:
        container.put_archive(str(Path(BUILD_DIR).parent), config.files())
        container.start()
        try:
            status = container.wait(timeout=timeout_s)
        except Exception as exc:  # the SDK raises the transport's timeout error
            raise ImageBuildError(f"installing declared packages ran past {timeout_s} s: {exc}") from exc
        code = int(status.get("StatusCode", -1))
        if code != 0:
            tail = container.logs(tail=LOG_TAIL).decode(errors="replace")
            raise ImageBuildError(f"installing declared packages failed (exit {code}):\n{tail}")
        base = client.images.get(split.base).attrs.get("Config") or {}
        kept = {
            "Env": base.get("Env") or [],
            "User": base.get("User") or "",
            "Cmd": base.get("Cmd"),
            "WorkingDir": base.get("WorkingDir") or "",
            "Labels": {**(base.get("Labels") or {}), DIGEST_LABEL: digest},
        }
        container.commit(repository=PACKAGES_REPOSITORY, tag=digest[:16], conf=kept)  # fmt: skip
    finally:
        container.remove(force=True)
    return tag


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    entry = tarfile.TarInfo(name)
    entry.size, entry.mode = len(data), 0o644
    archive.addfile(entry, io.BytesIO(data))


# -- before any build: do the declarations resolve? -----------------------------------------------


def unresolved(apt: Sequence[str], pip: Sequence[str], npm: Sequence[str] = ()) -> list[str]:
    """One message per declared package the host's indexes cannot provide, with the resolver's words."""
    problems = []
    for name in sorted(set(apt)):
        problems += _apt_problem(name)
    for spec in sorted(set(pip)):
        problems += _pip_problem(spec)
    for spec in sorted(set(npm)):
        problems += _npm_problem(spec)
    return problems


def _apt_problem(name: str) -> list[str]:
    if shutil.which("apt-cache") is None:
        return [f"apt package {name}: apt-cache is not on this host, so the declaration cannot be checked"]
    package, _, version = name.partition("=")
    shown = _run(["apt-cache", "show", "--no-all-versions", f"{package}={version}" if version else package])
    if shown.returncode != 0 or not shown.stdout.strip():
        reason = _last_line(shown.stderr) or "no such package in the host's apt sources"
        return [f"apt package {name} does not resolve: {reason}"]
    return []


def _pip_problem(spec: str) -> list[str]:
    name, _, version = spec.partition("==")
    name = name.split("[", 1)[0]
    listed = _run([sys.executable, "-m", "pip", "index", "versions", name, "--disable-pip-version-check"])
    if listed.returncode != 0:
        return [f"pip package {spec} does not resolve: {_last_line(listed.stderr) or 'no distribution found'}"]
    versions = re.search(r"Available versions:\s*(.+)", listed.stdout)
    if version and (versions is None or version not in [v.strip() for v in versions[1].split(",")]):
        return [f"pip package {spec} does not resolve: version {version} is not on the index ({_first_line(listed)})"]
    return []


def _npm_problem(spec: str) -> list[str]:
    """Asked of the registry itself (as the build's npm will ask it), so the host needs no npm."""
    at = spec.rfind("@")
    name, version = (spec[:at], spec[at + 1 :]) if at > 0 else (spec, "")
    url = f"{npm_registry().rstrip('/')}/{urllib.parse.quote(name, safe='@')}"
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.npm.install-v1+json"})  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=RESOLVE_TIMEOUT_S) as answer:  # noqa: S310 — http(s) only
            document = json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return [f"npm package {spec} does not resolve: the registry answered {exc.code} {exc.reason}"]
    except (OSError, ValueError) as exc:
        return [f"npm package {spec}: the registry {url} could not be asked, so it cannot be checked: {exc}"]
    versions = document.get("versions") if isinstance(document, dict) else None
    if not isinstance(versions, dict) or not versions:
        return [f"npm package {spec} does not resolve: the registry lists no published version"]
    if version and version not in versions:
        latest = (document.get("dist-tags") or {}).get("latest")
        return [f"npm package {spec} does not resolve: version {version} is not on the registry (latest: {latest})"]
    return []


def npm_registry() -> str:
    """The registry the host's npm uses: `npm_config_registry` in the environment, else `registry=`
    in ~/.npmrc, else npm's default."""
    for variable in ("npm_config_registry", "NPM_CONFIG_REGISTRY"):
        if os.environ.get(variable, "").startswith(("http://", "https://")):
            return os.environ[variable]
    try:
        lines = (Path.home() / ".npmrc").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() == "registry" and value.strip().startswith(("http://", "https://")):
            return value.strip()
    return NPM_REGISTRY


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"{command[0]} took longer than {RESOLVE_TIMEOUT_S} s")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _first_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    return lines[0][:200] if lines else ""
