"""The skill2env base image, built offline: a Debian root filesystem from debootstrap, `docker import`ed.

No registry is reachable, so nothing is pulled: debootstrap lays a minimal Debian from the
Debian archive, `apt-get` inside a chroot adds the tools tasks commonly need (one layer per
group in the recipe, installed in order), and the tree becomes an image with `docker import`.
The recipe's digest is a label on the image; a build whose digest is already there is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import docker
from docker.errors import DockerException, ImageNotFound
from pydantic import BaseModel, Field

from skill2env.sandbox.errors import ImageBuildError, SandboxUnavailable

BASE_IMAGE_REPOSITORY = "skill2env-base"
BASE_IMAGE = f"{BASE_IMAGE_REPOSITORY}:latest"
"""What task Dockerfiles name in `FROM skill2env-base`."""
RECIPE_DIGEST_LABEL = "org.skill2env.base-recipe"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEFAULT_SECURITY_MIRROR = "http://deb.debian.org/debian-security"
SANDBOX_USER = "agent"
SANDBOX_UID = 1000
DEFAULT_WORKSPACE = "/workspace"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
TRIMMED_PATHS = ("var/lib/apt/lists", "var/cache/apt", "usr/share/doc", "usr/share/man", "usr/share/info")

Log = Callable[[str], None]


class BaseImageRecipe(BaseModel):
    """What goes into the base image. Change any field and the next `build-base` builds anew."""

    recipe_version: int = 1
    suite: str = "bookworm"
    layers: dict[str, list[str]] = Field(
        default_factory=lambda: {
            "shell": ["bash", "ca-certificates", "coreutils", "procps", "file", "less", "util-linux"],
            "archives": ["unzip", "zip", "p7zip-full", "xz-utils", "bzip2", "tar", "gzip"],
            "text": ["jq", "sqlite3", "git", "curl", "gawk", "sed", "grep", "diffutils", "patch"],
            "python": [
                "python3",
                "python3-pip",
                "python3-venv",
                "python3-pytest",
                "python3-pandas",
                "python3-numpy",
                "python3-openpyxl",
                "python3-xlrd",
                "python3-pypdf",
                "python3-docx",
                "python3-lxml",
                "python3-bs4",
                "python3-yaml",
                "python3-requests",
                "python3-pil",
                "python3-tabulate",
            ],
            "documents": ["poppler-utils", "tesseract-ocr", "tesseract-ocr-eng"],
        }
    )
    """Package groups, installed in this order with `--no-install-recommends`."""
    user: str = SANDBOX_USER
    uid: int = SANDBOX_UID
    workspace: str = DEFAULT_WORKSPACE

    @property
    def packages(self) -> list[str]:
        return [package for group in self.layers.values() for package in group]

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.model_dump(), sort_keys=True).encode()).hexdigest()

    @property
    def tag(self) -> str:
        return f"{BASE_IMAGE_REPOSITORY}:{self.digest[:12]}"


class BaseImageBuild(BaseModel):
    image_id: str
    tag: str
    recipe_digest: str
    built: bool
    """False when an image with this recipe's digest already existed."""
    seconds: float


def find_base_image(client: docker.DockerClient, recipe: BaseImageRecipe) -> str | None:
    """The id of the image built from `recipe`, if there is one. By tag: images built FROM it inherit its label."""
    try:
        image = client.images.get(recipe.tag)
    except ImageNotFound:
        return None
    return image.id if image.labels.get(RECIPE_DIGEST_LABEL) == recipe.digest else None


def ensure_base_image(
    client: docker.DockerClient,
    recipe: BaseImageRecipe | None = None,
    *,
    mirror: str | None = None,
    force: bool = False,
    log: Log = print,
) -> BaseImageBuild:
    """Build the base image unless one from the same recipe exists; either way tag it `skill2env-base:latest`.

    Raises:
        SandboxUnavailable: not root, or debootstrap / unshare missing.
        ImageBuildError: debootstrap, apt or the import failed.
    """
    recipe = recipe or BaseImageRecipe()
    started = time.monotonic()
    existing = None if force else find_base_image(client, recipe)
    if existing is not None:
        _tag_latest(client, existing, recipe)
        return BaseImageBuild(image_id=existing, tag=recipe.tag, recipe_digest=recipe.digest, built=False, seconds=0.0)
    _require_build_tools()
    with tempfile.TemporaryDirectory(prefix="skill2env-base-", dir=_scratch_dir()) as scratch:
        root = Path(scratch) / "rootfs"
        _debootstrap(root, recipe, mirror or os.environ.get("SKILL2ENV_DEBIAN_MIRROR", DEFAULT_MIRROR), log)
        _install_layers(root, recipe, log)
        _add_sandbox_user(root, recipe)
        _trim(root)
        tarball = Path(scratch) / "rootfs.tar"
        log("packing the root filesystem")
        _run(["tar", "-C", str(root), "--numeric-owner", "-cf", str(tarball), "."], "tar")
        image_id = _import(client, tarball, recipe, log)
    _tag_latest(client, image_id, recipe)
    return BaseImageBuild(
        image_id=image_id,
        tag=recipe.tag,
        recipe_digest=recipe.digest,
        built=True,
        seconds=time.monotonic() - started,
    )


def _require_build_tools() -> None:
    if os.geteuid() != 0:
        raise SandboxUnavailable("building the base image needs root (debootstrap, chroot)")
    for tool in ("debootstrap", "unshare", "chroot", "tar"):
        if shutil.which(tool) is None:
            raise SandboxUnavailable(f"{tool} is missing; `apt-get install debootstrap` (scripts/setup-sandbox.sh)")


def _scratch_dir() -> str:
    """Large and on disk (a root filesystem of ~1 GiB), not a RAM-backed /tmp."""
    scratch = Path(os.environ.get("SKILL2ENV_BUILD_DIR", "/var/tmp"))  # noqa: S108 — mkdtemp'd below
    scratch.mkdir(parents=True, exist_ok=True)
    return str(scratch)


def _debootstrap(root: Path, recipe: BaseImageRecipe, mirror: str, log: Log) -> None:
    log(f"debootstrap {recipe.suite} (minbase) from {mirror}")
    _run(["debootstrap", "--variant=minbase", recipe.suite, str(root), mirror], "debootstrap")
    sources = [
        f"deb {mirror} {recipe.suite} main",
        f"deb {mirror} {recipe.suite}-updates main",
        f"deb {os.environ.get('SKILL2ENV_DEBIAN_SECURITY_MIRROR', DEFAULT_SECURITY_MIRROR)} "
        f"{recipe.suite}-security main",
    ]
    (root / "etc/apt/sources.list").write_text("\n".join(sources) + "\n")
    # No service may start inside the chroot while packages install.
    policy = root / "usr/sbin/policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")


def _install_layers(root: Path, recipe: BaseImageRecipe, log: Log) -> None:
    log(f"apt-get upgrade from {recipe.suite}, {recipe.suite}-updates, {recipe.suite}-security")
    _chroot(root, "apt-get update -q && apt-get -y -q upgrade", log, "apt-get upgrade")
    for group, packages in recipe.layers.items():
        log(f"installing {group}: {' '.join(packages)}")
        _chroot(root, "apt-get install -y -q --no-install-recommends " + " ".join(packages), log, f"layer {group}")
    _chroot(root, "apt-get clean", log, "apt-get clean")


def _chroot(root: Path, script: str, log: Log, what: str) -> None:
    # A private mount and PID namespace: the chroot's /proc and any daemon a package starts
    # vanish with it, so a failed build leaves no mount behind on the host.
    command = ["unshare", "--mount", "--pid", "--fork", f"--mount-proc={root}/proc", "chroot", str(root)]
    env = {"PATH": SYSTEM_PATH, "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C", "HOME": "/root"}
    _run([*command, "/bin/sh", "-c", script], what, env=env)


def _add_sandbox_user(root: Path, recipe: BaseImageRecipe) -> None:
    etc = root / "etc"
    with (etc / "passwd").open("a") as passwd:
        passwd.write(f"{recipe.user}:x:{recipe.uid}:{recipe.uid}:{recipe.user}:/home/{recipe.user}:/bin/bash\n")
    with (etc / "group").open("a") as group:
        group.write(f"{recipe.user}:x:{recipe.uid}:\n")
    with (etc / "shadow").open("a") as shadow:
        shadow.write(f"{recipe.user}:!:19000:0:99999:7:::\n")
    for directory in (root / "home" / recipe.user, root / recipe.workspace.lstrip("/")):
        directory.mkdir(parents=True, exist_ok=True)
        os.chown(directory, recipe.uid, recipe.uid)


def _trim(root: Path) -> None:
    for relative in TRIMMED_PATHS:
        target = root / relative
        if target.is_dir():
            shutil.rmtree(target)
            target.mkdir()
    (root / "usr/sbin/policy-rc.d").unlink(missing_ok=True)
    (root / "etc/resolv.conf").write_text("")


def _import(client: docker.DockerClient, tarball: Path, recipe: BaseImageRecipe, log: Log) -> str:
    log(f"docker import → {recipe.tag}")
    changes = [
        f"ENV PATH={SYSTEM_PATH}",
        "ENV LANG=C.UTF-8",
        "ENV PYTHONDONTWRITEBYTECODE=1",
        f"WORKDIR {recipe.workspace}",
        f"LABEL {RECIPE_DIGEST_LABEL}={recipe.digest}",
        'CMD ["/bin/bash"]',
    ]
    repository, tag = recipe.tag.split(":")
    try:
        client.api.import_image(src=str(tarball), repository=repository, tag=tag, changes=changes)
        return str(client.images.get(recipe.tag).id)
    except DockerException as exc:
        raise ImageBuildError(f"docker import of the base root filesystem failed: {exc}") from exc


def _tag_latest(client: docker.DockerClient, image_id: str, recipe: BaseImageRecipe) -> None:
    try:
        image = client.images.get(image_id)
    except ImageNotFound as exc:
        raise ImageBuildError(f"base image {image_id} vanished while tagging it") from exc
    image.tag(BASE_IMAGE_REPOSITORY, "latest")
    image.tag(BASE_IMAGE_REPOSITORY, recipe.digest[:12])


def _run(command: list[str], what: str, *, env: dict[str, str] | None = None) -> None:
    completed = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if completed.returncode != 0:
        tail = (completed.stdout + completed.stderr)[-4000:]
        raise ImageBuildError(f"{what} failed (exit {completed.returncode}):\n{tail}")


def push_base_image(client: docker.DockerClient, registry: str, recipe: BaseImageRecipe | None = None) -> str:
    """Push the base image of `recipe` to `registry` (`host[:port][/path]`) and return its immutable
    reference, `registry/skill2env-base@sha256:…`: what `export harbor --base-image` writes into every
    exported Dockerfile so cloud sandbox providers can build the tasks.

    Raises:
        ImageBuildError: the base image is missing, or the push failed or reported no digest.
    """
    recipe = recipe or BaseImageRecipe()
    image_id = find_base_image(client, recipe)
    if image_id is None:
        raise ImageBuildError(f"no base image for this recipe ({recipe.tag}): run `skill2env sandbox build-base`")
    repository = f"{registry.rstrip('/')}/{BASE_IMAGE_REPOSITORY}"
    tag = recipe.tag.split(":", 1)[1]
    image = client.images.get(image_id)
    image.tag(repository, tag)
    errors = []
    try:
        for line in client.images.push(repository, tag=tag, stream=True, decode=True):
            if isinstance(line, dict) and line.get("error"):
                errors.append(str(line["error"]))
    except DockerException as exc:
        raise ImageBuildError(f"pushing {repository}:{tag} failed: {exc}") from exc
    if errors:
        raise ImageBuildError(f"pushing {repository}:{tag} failed: {'; '.join(errors)}")
    image.reload()
    digests = [d for d in image.attrs.get("RepoDigests") or [] if d.startswith(f"{repository}@sha256:")]
    if not digests:
        raise ImageBuildError(f"the registry reported no digest for {repository}:{tag}")
    return digests[0]
