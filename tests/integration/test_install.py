"""The wheel carries everything the package reads at run time: built from the project, installed
non-editable into a fresh venv, `skill2env run` on the bundled example skills works from another
directory, with nothing of the source tree on the path."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
from bundled_skills import NO_KIT

from skill2env.home import EXAMPLE_SKILLS
from skill2env.lake.lake import Lake

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.bwrap, pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "skill2env", "assets", "resources")
"""What the build reads: the packages `[tool.setuptools.packages.find]` includes, and the metadata."""


def _run(command: list[str], *, cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


def _build_wheel(tmp_path: Path, env: dict[str, str]) -> Path:
    """A wheel of a copy of the project (the build leaves `build/` and egg-info behind: not in the tree)."""
    source = tmp_path / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
         cwd=tmp_path, env=env, timeout=600)  # fmt: skip
    (wheel,) = dist.glob("skill2env-*.whl")
    return wheel


def _fresh_venv(tmp_path: Path, wheel: Path, env: dict[str, str]) -> Path:
    """A venv without system site-packages holding the wheel; the dependencies (not skill2env) come
    from this interpreter's site-packages through a `.pth` file, so nothing is downloaded."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path, env=env, timeout=120)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
         cwd=tmp_path, env=env, timeout=300)  # fmt: skip
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=tmp_path,
                   env=env, timeout=60).stdout.strip()  # fmt: skip
    # A directory named in a .pth file joins sys.path after the venv's own, and the .pth files in it
    # are not run: the source tree's editable-install finder stays out.
    Path(purelib, "skill2env_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return venv


def test_a_non_editable_install_runs_the_bundled_examples_from_another_directory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "SKILL2ENV_SKILLS",
                                                            "DAGSTER_HOME", "SKILL2ENV_ITERATIONS"}}  # fmt: skip
    wheel = _build_wheel(tmp_path, env)
    venv = _fresh_venv(tmp_path, wheel, env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env |= {"SKILL2ENV_HOME": str(tmp_path / "home"), "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"}

    where = _run([str(venv / "bin" / "python"), "-c",
                  "import assets, resources, skill2env.home as h, skill2env.lake.sqlfiles as s\n"
                  "for p in (h.__file__, assets.__file__, resources.__file__, s.SQL_DIR, h.DAGSTER_YAML, "
                  "h.EXAMPLE_SKILLS): print(p)"], cwd=elsewhere, env=env, timeout=120).stdout.split()  # fmt: skip
    assert len(where) == 6
    for path in map(Path, where):
        assert path.resolve().is_relative_to(venv.resolve()), where
        assert not path.resolve().is_relative_to(REPO), where
        assert path.exists(), path

    done = _run([str(venv / "bin" / "skill2env"), "run", "--iterations", "0", "--attempts", "1"], cwd=elsewhere,
                env=env, timeout=1500)  # fmt: skip

    examples = sorted(p.name for p in EXAMPLE_SKILLS.iterdir() if (p / "SKILL.md").is_file())
    output = " ".join((done.stdout + done.stderr).split())
    assert f"Cataloged {len(examples)} skill folders" in output, output
    lake = Lake(tmp_path / "home" / "lake.duckdb")
    accepted = lake.query("SELECT DISTINCT skill_path FROM accepted_tasks ORDER BY skill_path")
    served = [name for name in examples if name not in NO_KIT]
    assert [Path(p).name for p in accepted.get_column("skill_path").to_list()] == served
    assert not (elsewhere / ".skill2env").exists()
