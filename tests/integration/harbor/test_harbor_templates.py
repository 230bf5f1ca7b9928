"""Harbor's own `task init` templates (and a task.toml using every field) against the project's one
`task.toml` model: they import into the lake, and parse → `to_toml` → Harbor's `TaskConfig` gives
back the model Harbor reads from the original. The model's fields follow Harbor's JSON schema."""

from __future__ import annotations

import json
import tomllib
import uuid
from pathlib import Path

import pytest
from harbor_client import HARBOR_PYTHON, harbor_cli, harbor_python
from harbor_schema import schema_shape

from skill2env.lake.lake import Lake, TableWrite
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.exchange import IMPORT_CODE_VERSION, import_source, import_tree
from skill2env.tasks.harbor_config import TaskConfig, VerifierEnvironmentMode, unknown_keys
from skill2env.tasks.records import TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import task_files_frame, tasks_frame

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[2]
HARBOR_DUMPS = """
import json, sys, warnings
warnings.simplefilter("ignore")  # the legacy spellings warn
from harbor.models.task.config import TaskConfig
print(json.dumps([TaskConfig.model_validate_toml(open(p).read()).model_dump(mode="json") for p in sys.argv[1:]]))
"""
HARBOR_SHAPE = f"""
import json, sys
sys.path.insert(0, {str(TESTS)!r})
from harbor_schema import schema_shape
from harbor.models.task.config import TaskConfig
print(json.dumps(schema_shape(TaskConfig.model_json_schema())))
"""
FRACTIONAL = '[environment]\ncpus = 0.5\nmemory_mb = 1024\n\n[metadata]\ndifficulty = "easy"\n'
TEMPLATES = {
    "shared": ("--verifier-mode", "shared"),
    "separate": ("--verifier-mode", "separate"),
    "multi-step": ("--steps", "3"),
    "fractional": ("--author", "Ann <ann@example.org>"),
}
EVERY_FIELD = """
version = "1.1"
source = "https://example.org/tasks"
multi_step_reward_strategy = "final"
artifacts = ["/logs/out.txt", { source = "/workspace/db", destination = "db", exclude = ["*.tmp"] }]

[task]
name = "acme/everything"
version = "2"
description = "every field"
keywords = ["a"]
authors = [{ name = "Ann", email = "ann@example.org" }]

[metadata]
category = "data"
nested = { k = 1.5, flags = [true, false] }

[verifier]
timeout_sec = 90.0
user = 1001
network_mode = "allowlist"
allowed_hosts = ["pypi.org", "*.example.org"]
environment_mode = "separate"
env = { TOKEN = "${TOKEN}" }

[verifier.environment]
docker_image = "python:3.12-slim"
allow_internet = false
memory = "1G"

[[verifier.collect]]
command = "pg_dump > /logs/db.sql"
service = "db"
timeout_sec = 30.0

[agent]
timeout_sec = 300.0
user = "agent"
network_mode = "no-network"

[environment]
build_timeout_sec = 120.0
os = "Linux"
cpus = 2.5
storage = "2G"
gpus = 1
gpu_types = ["H100"]
tpu = { type = "v6e", topology = "2x4" }
skills_dir = "/skills"
workdir = "/app"
env = { MODE = "${MODE:-fast}" }
healthcheck = { command = "true", retries = 5 }

[[environment.mcp_servers]]
name = "docs"
transport = "http"
url = "http://localhost:8000/mcp"
headers = { Authorization = "Bearer ${DOCS_TOKEN}" }

[[environment.mcp_servers]]
name = "local"
transport = "stdio"
command = "docs-server"
args = ["--quiet"]

[solution]
env = { SEED = "1" }

[[steps]]
name = "collect"
min_reward = 0.5
artifacts = ["/logs/step.txt"]
healthcheck = { command = "test -f /app/ready" }

[steps.agent]
timeout_sec = 60.0

[steps.verifier]
timeout_sec = 30.0

[[steps]]
name = "report"
min_reward = { reward = 1.0, style = 0.5 }
"""


def harbor_dumps(*paths: Path) -> list[dict[str, object]]:
    dumps: list[dict[str, object]] = harbor_python(HARBOR_DUMPS, *paths)
    return dumps


def assert_round_trips(original: Path, tmp_path: Path) -> TaskConfig:
    """Ours parses `original` with no unknown key; what it writes, Harbor reads as it reads the original."""
    config = TaskConfig.from_toml(original.read_text())
    written = tmp_path / "written.toml"
    written.write_text(config.to_toml())

    assert unknown_keys(config) == []
    assert TaskConfig.from_toml(written.read_text()) == config
    assert TaskConfig.from_toml(written.read_text()).to_toml() == written.read_text()  # stable bytes
    harbors_original, harbors_ours = harbor_dumps(original, written)
    assert harbors_ours == harbors_original
    return config


def init_template(tmp_path: Path, kind: str) -> Path:
    options = list(TEMPLATES[kind])
    if kind == "fractional":
        template = tmp_path / "defaults.toml"
        template.write_text(FRACTIONAL)
        options += ["--metadata-template", str(template)]
    done = harbor_cli("task", "init", f"acme/{kind}", "--tasks-dir", tmp_path / "tasks", *options)
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp_path / "tasks" / kind


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_harbor_task_init_templates_import_and_round_trip(kind: str, tmp_path: Path, lake: Lake) -> None:
    root = init_template(tmp_path, kind)

    records = import_tree(root, TaskStore(tmp_path / "store"))
    source = import_source(root)
    lake.write([TableWrite("tasks", tasks_frame(records), partition_key=source),
                TableWrite("task_files", task_files_frame(records), partition_key=source)],
               run_id=f"test-{uuid.uuid4().hex}", code_version=IMPORT_CODE_VERSION)  # fmt: skip
    [(task_id, status, reasons, store_path)] = lake.query(
        "SELECT task_id, status, reasons, store_path FROM tasks WHERE source = ?", [source]
    ).rows()
    config = assert_round_trips(root / "task.toml", tmp_path)

    assert (task_id, status) == (kind, TaskStatus.built.value), reasons
    assert not [reason for reason in reasons if "unknown key" in reason]
    assert lake.query("SELECT count(*) FROM task_files").item() == sum(1 for p in root.rglob("*") if p.is_file())
    stored = TaskDir(TaskStore(tmp_path / "store").resolve(store_path))
    multi = [reason for reason in reasons if reason.startswith("multi-step task")]
    if kind == "multi-step":
        assert config.steps is not None and [s.name for s in config.steps] == ["step-1", "step-2", "step-3"]
        assert multi == ["multi-step task (3 steps: 'step-1', 'step-2', 'step-3'): imported and stored whole, "
                         "but the gates and rollouts run only its first step, 'step-1'"]  # fmt: skip
        assert stored.run_step == "step-1" and stored.is_valid()
        assert stored.test_script == stored.root / "steps" / "step-1" / "tests" / "test.sh"
        assert stored.instruction.read_text() == (root / "steps" / "step-1" / "instruction.md").read_text()
    else:
        assert multi == [] and stored.run_step is None and stored.is_valid()
    expected_mode = VerifierEnvironmentMode.shared if kind == "shared" else VerifierEnvironmentMode.separate
    assert config.verifier.environment_mode == expected_mode
    if kind == "fractional":
        assert config.environment.cpus == 0.5 and config.task is not None
        assert [(a.name, a.email) for a in config.task.authors] == [("Ann", "ann@example.org")]
        assert SandboxLimits.for_task(stored).cpus == 0.5


def test_a_task_toml_with_every_field_round_trips_through_harbor(tmp_path: Path) -> None:
    original = tmp_path / "task.toml"
    original.write_text(EVERY_FIELD)

    config = assert_round_trips(original, tmp_path)

    assert config.schema_version == "1.1" and config.environment.cpus == 2.5
    assert config.environment.storage_mb == 2048 and config.environment.os == "linux"
    assert config.verifier.environment is not None and config.verifier.environment.network_mode == "no-network"
    assert config.verifier.environment.memory_mb == 1024
    assert config.environment.mcp_servers[0].transport == "streamable-http"
    assert config.steps is not None and config.steps[1].min_reward == {"reward": 1.0, "style": 0.5}
    written = (tmp_path / "written.toml").read_text()
    assert "[[steps]]" in written and "[[verifier.collect]]" in written and "[[environment.mcp_servers]]" in written
    raw = tomllib.loads(written)  # the legacy spellings are read, never written
    assert "version" not in raw and raw["schema_version"] == "1.1"
    assert {"storage", "memory", "allow_internet"}.isdisjoint(raw["environment"])
    assert raw["verifier"]["environment"] == {"docker_image": "python:3.12-slim", "memory_mb": 1024,
                                              "network_mode": "no-network"}  # fmt: skip


def test_the_model_has_harbors_fields_types_and_defaults() -> None:
    theirs = harbor_python(HARBOR_SHAPE)
    ours = json.loads(json.dumps(schema_shape(TaskConfig.model_json_schema())))

    assert set(ours) == set(theirs)  # the same tables, `[[steps]]` and its sections included
    for table in theirs:
        assert ours[table] == theirs[table], table
    assert {"steps[]", "verifier.environment", "verifier.collect[]", "environment.tpu"} <= set(ours)
    assert HARBOR_PYTHON.is_file()
