"""Task images: the task's `environment/Dockerfile` built FROM the base image, cached by the environment digest.

The build appends a short epilogue to the task's Dockerfile. The workspace (its last WORKDIR)
is handed to the agent user, because a sandbox drops every capability and even its root could
not take ownership later. And a copy of it is kept as the seed: a sandbox mounts a size-limited
tmpfs volume over the workspace, and Docker copies an image's files into a fresh volume only
for disk-backed ones, so the sandbox copies the seed in itself. A `FROM` image that is not on the
engine (an imported task's public image: nothing can be pulled here) is replaced by the base image,
with a warning.
"""

from __future__ import annotations

import io
import logging
import tarfile
import threading
from collections.abc import Callable

import docker
from docker.errors import APIError, BuildError, ImageNotFound

from skill2env.sandbox.base_image import BASE_IMAGE, SANDBOX_UID
from skill2env.sandbox.errors import ImageBuildError, SandboxUnavailable
from skill2env.sandbox.packages import ensure_packages_stage, split_declared, with_packages_stage
from skill2env.sandbox.task import TaskDir

TASK_IMAGE_REPOSITORY = "skill2env-task"
ENV_DIGEST_LABEL = "org.skill2env.env-digest"
BASE_IMAGE_LABEL = "org.skill2env.base-image"
GENERATED_DOCKERFILE = "Dockerfile.skill2env"
WORKSPACE_SEED = "/opt/skill2env/workspace-seed"
BUILD_LOG_TAIL = 40
logger = logging.getLogger(__name__)

Log = Callable[[str], None]
_BUILD_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_BUILD_LOCKS_GUARD = threading.Lock()


def task_image_tag(task: TaskDir) -> str:
    return f"{TASK_IMAGE_REPOSITORY}:{task.environment_digest[:16]}"


def ensure_task_image(client: docker.DockerClient, task: TaskDir, *, log: Log | None = None) -> str:
    """The image to run `task` in, built now unless one from the same environment and base exists.

    Raises:
        SandboxUnavailable: the task names a prebuilt `docker_image` that is not present (nothing is pulled).
        ImageBuildError: the Dockerfile failed to build (the message holds the log's tail).
    """
    prebuilt = task.config.environment.docker_image
    if prebuilt and not task.dockerfile.is_file():
        try:
            client.images.get(prebuilt)
        except ImageNotFound as exc:
            raise SandboxUnavailable(f"task image {prebuilt} is not present and no registry is reachable") from exc
        return prebuilt
    tag = task_image_tag(task)
    with _build_lock(client, tag):  # sandboxes starting at once for one task: one build, the rest wait
        return _ensure_built(client, task, tag, log)


def _build_lock(client: docker.DockerClient, tag: str) -> threading.Lock:
    with _BUILD_LOCKS_GUARD:
        return _BUILD_LOCKS.setdefault((str(client.api.base_url), tag), threading.Lock())


def _ensure_built(client: docker.DockerClient, task: TaskDir, tag: str, log: Log | None) -> str:
    base_id = _base_image_id(client)
    if _cached(client, tag, task.environment_digest, base_id):
        return tag
    if log:
        log(f"building {tag} for {task.name}")
    labels = {ENV_DIGEST_LABEL: task.environment_digest, BASE_IMAGE_LABEL: base_id}
    try:
        client.images.build(
            fileobj=_build_context(task, client, log=log),
            custom_context=True,
            dockerfile=GENERATED_DOCKERFILE,
            tag=tag,
            labels=labels,
            rm=True,
            forcerm=True,
            pull=False,
            network_mode="bridge" if task.network_enabled else "none",
            timeout=int(task.config.environment.build_timeout_sec),
        )
    except BuildError as exc:
        lines = [str(chunk.get("stream") or chunk.get("error") or "").rstrip() for chunk in exc.build_log]
        tail = "\n".join(line for line in lines if line)
        tail = "\n".join(tail.splitlines()[-BUILD_LOG_TAIL:])
        raise ImageBuildError(f"building {task.name}'s image failed: {exc.msg}\n{tail}") from exc
    except APIError as exc:
        raise ImageBuildError(f"building {task.name}'s image failed: {exc}") from exc
    return tag


def _base_image_id(client: docker.DockerClient) -> str:
    try:
        return str(client.images.get(BASE_IMAGE).id)
    except ImageNotFound:
        return ""


def _cached(client: docker.DockerClient, tag: str, digest: str, base_id: str) -> bool:
    try:
        labels = client.images.get(tag).labels
    except ImageNotFound:
        return False
    return labels.get(ENV_DIGEST_LABEL) == digest and labels.get(BASE_IMAGE_LABEL) == base_id


def stand_in_base(dockerfile: str, present: Callable[[str], bool]) -> tuple[str, list[str]]:
    """`dockerfile` with every `FROM` image that is not `present` (and not an earlier stage) replaced by
    the base image (nothing can be pulled here), and the images replaced."""
    stages: set[str] = set()
    replaced: list[str] = []
    lines = []
    for line in dockerfile.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].upper() == "FROM":
            image = next((w for w in words[1:] if not w.startswith("--")), "")
            if image and image.lower() not in stages and not present(image):
                replaced.append(image)
                line = line.replace(image, BASE_IMAGE, 1)
            if len(words) >= 4 and words[-2].upper() == "AS":
                stages.add(words[-1].lower())
        lines.append(line)
    return "\n".join(lines) + "\n", replaced


def _present(client: docker.DockerClient) -> Callable[[str], bool]:
    def present(image: str) -> bool:
        try:
            client.images.get(image)
        except (ImageNotFound, APIError):
            return False
        return True

    return present


def _build_context(task: TaskDir, client: docker.DockerClient | None = None, *, log: Log | None = None) -> io.BytesIO:
    dockerfile = task.dockerfile.read_text()
    if client is not None:
        dockerfile, replaced = stand_in_base(dockerfile, _present(client))
        if replaced:
            logger.warning("%s: FROM %s is not on this engine and cannot be pulled: the base image %s stands in",
                           task.name, ", ".join(replaced), BASE_IMAGE)  # fmt: skip
        declared = split_declared(dockerfile)
        if declared is not None:  # installed with the network on, in a stage of their own (see `packages`)
            dockerfile = with_packages_stage(declared, ensure_packages_stage(client, declared, log=log))
    epilogue = (
        "\n# skill2env: the workspace belongs to the agent user (a sandbox has no CAP_CHOWN later)\n"
        "USER root\n"
        f"WORKDIR {task.workdir}\n"
        f"RUN chown -R {SANDBOX_UID}:{SANDBOX_UID} {task.workdir} && mkdir -p {WORKSPACE_SEED} "
        f"&& cp -a {task.workdir}/. {WORKSPACE_SEED}/\n"
    )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add(task.environment_dir, arcname=".")
        data = (dockerfile.rstrip("\n") + "\n" + epilogue).encode()
        entry = tarfile.TarInfo(GENERATED_DOCKERFILE)
        entry.size = len(data)
        archive.addfile(entry, io.BytesIO(data))
    buffer.seek(0)
    return buffer
