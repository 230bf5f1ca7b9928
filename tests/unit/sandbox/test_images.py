"""The base image recipe and the task image's build context (no engine needed)."""

from __future__ import annotations

import tarfile

from harbor_tasks import LOG_TRIAGE, fixture_task

from skill2env.sandbox.base_image import BASE_IMAGE, BaseImageRecipe
from skill2env.sandbox.images import (
    GENERATED_DOCKERFILE,
    WORKSPACE_SEED,
    _build_context,
    stand_in_base,
    task_image_tag,
)


def test_the_recipe_digest_is_stable_and_follows_every_field() -> None:
    recipe = BaseImageRecipe()

    assert recipe.digest == BaseImageRecipe().digest
    assert recipe.tag == f"skill2env-base:{recipe.digest[:12]}"
    assert BaseImageRecipe(suite="trixie").digest != recipe.digest
    assert BaseImageRecipe(layers={"python": ["python3"]}).digest != recipe.digest


def test_the_recipe_bakes_in_the_common_tools() -> None:
    packages = set(BaseImageRecipe().packages)

    expected = {"python3", "python3-pandas", "python3-openpyxl", "python3-pypdf", "poppler-utils", "tesseract-ocr"}
    assert expected | {"jq", "sqlite3", "git", "curl", "unzip", "p7zip-full"} <= packages


def test_the_build_context_holds_the_environment_and_a_dockerfile_with_the_epilogue() -> None:
    task = fixture_task(LOG_TRIAGE)

    with tarfile.open(fileobj=_build_context(task)) as context:
        names = context.getnames()
        member = context.extractfile(GENERATED_DOCKERFILE)
        assert member is not None
        dockerfile = member.read().decode()

    assert "./workspace/logs/app.log" in names and "./Dockerfile" in names
    assert dockerfile.startswith(task.dockerfile.read_text())
    assert "RUN chown -R 1000:1000 /app" in dockerfile
    assert f"cp -a /app/. {WORKSPACE_SEED}/" in dockerfile


def test_the_task_image_is_tagged_by_the_environment_digest() -> None:
    task = fixture_task(LOG_TRIAGE)

    assert task_image_tag(task) == f"skill2env-task:{task.environment_digest[:16]}"


def test_an_image_that_is_not_on_the_engine_is_replaced_by_the_base_image() -> None:
    dockerfile = (
        "FROM --platform=linux/amd64 python:3.12-slim AS build\nRUN true\n"
        "FROM build\nFROM skill2env-base:abc\nCOPY workspace/ /workspace/\n"
    )

    written, replaced = stand_in_base(dockerfile, lambda image: image.startswith("skill2env-base"))

    assert replaced == ["python:3.12-slim"]
    assert written.splitlines() == [
        f"FROM --platform=linux/amd64 {BASE_IMAGE} AS build",
        "RUN true",
        "FROM build",  # an earlier stage, never an image to pull
        "FROM skill2env-base:abc",
        "COPY workspace/ /workspace/",
    ]
