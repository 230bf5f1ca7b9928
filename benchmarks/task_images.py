"""What a task with declared packages costs before its first command, against the base image's.

    python benchmarks/task_images.py [--apt tree] [--pip tomli-w==1.0.0] [--repeat 3]

In one run: a task image with two declared packages built cold (its packages stage and the image
removed first) and cached; its file system exported for bwrap; a sandbox started from it on each
backend, against one started from the base image (a task with no packages) on the same backend.
Prints medians; the ratios only compare figures of the same run.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import docker

from skill2env.kits import KITS
from skill2env.sandbox import TaskDir, make_sandbox
from skill2env.sandbox.images import ensure_task_image
from skill2env.sandbox.packages import PACKAGES_REPOSITORY
from skill2env.sandbox.rootfs import export_rootfs, rootfs_cache
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.harbor import write_task_dir

SKILL = SkillRef(skill_id="s-bench", name="bench", path="bench")


def _task(root: Path, name: str, apt: list[str], pip: list[str]) -> TaskDir:
    kit = KITS["cleanroom"]
    draft = kit.build(3, SKILL, "data-analytics", dict.fromkeys(kit.starters[:2], 1))
    environment = draft.blueprint.environment.model_copy(update={"apt_packages": apt, "pip_packages": pip})
    draft = dataclasses.replace(draft, blueprint=draft.blueprint.model_copy(update={"environment": environment}))
    skill = root / "skill"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: bench\ndescription: benchmark skill\n---\n# bench\n")
    write_task_dir(draft, root / name, skill_dir=skill)
    return TaskDir(root / name)


def _seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _forget(client: docker.DockerClient, task: TaskDir) -> None:
    """The task's image, its packages stage and its exported file system, gone: the next build is cold."""
    from skill2env.sandbox.images import task_image_tag

    for tag in [task_image_tag(task), *(t for i in client.images.list(name=PACKAGES_REPOSITORY) for t in i.tags)]:
        try:
            image_id = client.images.get(tag).id or ""
            client.images.remove(tag, force=True)
            shutil.rmtree(rootfs_cache() / image_id.removeprefix("sha256:")[:16], ignore_errors=True)
        except docker.errors.ImageNotFound:
            continue


def _start(backend: str, task: TaskDir) -> float:
    with make_sandbox(backend) as sandbox:  # type: ignore[arg-type]
        return _seconds(lambda: sandbox.start(task))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--apt", default="tree")
    parser.add_argument("--pip", default="tomli-w==1.0.0")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    client = docker.from_env()
    with tempfile.TemporaryDirectory(prefix="skill2env-bench-images-") as scratch:
        root = Path(scratch)
        plain, declared = _task(root, "plain", [], []), _task(root, "declared", [args.apt], [args.pip])
        cold, cached, export = [], [], []
        for _ in range(args.repeat):
            _forget(client, declared)
            cold.append(_seconds(lambda: ensure_task_image(client, declared)))
            cached.append(_seconds(lambda: ensure_task_image(client, declared)))
            image = ensure_task_image(client, declared)
            export.append(_seconds(lambda image=image: export_rootfs(client, image)))  # type: ignore[misc]
        _start("bwrap", plain)
        _start("docker", plain)  # warm: the plain task's image is built once, outside the figures
        starts = {
            (backend, name): [_start(backend, task) for _ in range(args.repeat)]
            for backend in ("bwrap", "docker")
            for name, task in (("base image", plain), ("declared packages", declared))
        }
    print(f"task image with apt {args.apt} and pip {args.pip}, medians of {args.repeat}:")
    print(f"  build, cold (packages stage + image)   {statistics.median(cold):7.2f} s")
    print(f"  build, cached                          {statistics.median(cached):7.2f} s")
    print(f"  export its file system for bwrap       {statistics.median(export):7.2f} s (once per image id)")
    for backend in ("bwrap", "docker"):
        base = statistics.median(starts[(backend, "base image")])
        own = statistics.median(starts[(backend, "declared packages")])
        print(f"  sandbox start, {backend:6}  base image {base:6.3f} s   declared packages {own:6.3f} s   "
              f"ratio {own / base:5.2f}×")  # fmt: skip


if __name__ == "__main__":
    main()
