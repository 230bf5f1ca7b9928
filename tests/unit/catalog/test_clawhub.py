"""Tests for reading ClawHub's `metadata.openclaw` block."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus import OPENCLAW

from skill2env.catalog.clawhub import clawhub_meta
from skill2env.catalog.frontmatter import parse_frontmatter
from skill2env.catalog.models import ClawHubMeta


def _meta(block: Any, key: str = "openclaw") -> ClawHubMeta:
    meta = clawhub_meta({"name": "x", "metadata": {key: block}})
    assert meta is not None
    return meta


def test_full_block_is_read() -> None:
    block = {
        "emoji": "🔐",
        "os": ["darwin", "linux"],
        "requires": {"bins": ["bw", "tmux"], "anyBins": ["python3", "python"], "env": ["BW_SESSION"]},
        "install": [{"id": "brew-bw", "kind": "brew", "formula": "bitwarden-cli", "bins": ["bw"]}],
        "primaryEnv": "BW_SESSION",
    }

    meta = _meta(block)

    assert meta.key == "openclaw"
    assert meta.bins == ["bw", "tmux"]
    assert meta.any_bins == ["python3", "python"]
    assert meta.env == ["BW_SESSION"]
    assert meta.os == ["darwin", "linux"]
    assert meta.install == [{"id": "brew-bw", "kind": "brew", "formula": "bitwarden-cli", "bins": ["bw"]}]
    assert meta.primary_env == "BW_SESSION"
    assert meta.config == []


def test_requires_config_is_read() -> None:
    assert _meta({"requires": {"config": ["channels.discord"]}}).config == ["channels.discord"]


@pytest.mark.parametrize(
    "frontmatter",
    [
        {},
        {"metadata": None},
        {"metadata": {"author": "me"}},
        {"metadata": ["openclaw"]},
        {"metadata": "not json"},
        {"metadata": '{"openclaw": '},
        {"metadata": "[1, 2]"},
        {"name": "openclaw"},
    ],
)
def test_no_clawhub_block_gives_none(frontmatter: dict[str, Any]) -> None:
    assert clawhub_meta(frontmatter) is None


def test_non_mapping_frontmatter_gives_none() -> None:
    assert clawhub_meta(["metadata"]) is None  # type: ignore[arg-type]


def test_metadata_as_json_string_is_parsed() -> None:
    frontmatter = {"metadata": json.dumps({"clawdbot": {"requires": {"bins": ["curl", "jq"]}}})}

    meta = clawhub_meta(frontmatter)

    assert meta is not None
    assert meta.key == "clawdbot"
    assert meta.bins == ["curl", "jq"]


def test_block_as_json_string_is_parsed() -> None:
    meta = _meta('{"requires": {"env": ["TOKEN_A"]}}')

    assert meta.env == ["TOKEN_A"]


def test_first_present_key_wins_in_order_openclaw_clawdbot_clawdis() -> None:
    metadata = {
        "clawdis": {"requires": {"bins": ["c"]}},
        "clawdbot": {"requires": {"bins": ["b"]}},
        "openclaw": {"requires": {"bins": ["a"]}},
    }
    meta = clawhub_meta({"metadata": metadata})
    assert meta is not None
    assert (meta.key, meta.bins) == ("openclaw", ["a"])

    del metadata["openclaw"]
    meta = clawhub_meta({"metadata": metadata})
    assert meta is not None
    assert (meta.key, meta.bins) == ("clawdbot", ["b"])

    del metadata["clawdbot"]
    meta = clawhub_meta({"metadata": metadata})
    assert meta is not None
    assert (meta.key, meta.bins) == ("clawdis", ["c"])


def test_moltbot_is_read_as_the_oldest_alias() -> None:
    meta = _meta({"requires": {"bins": ["node"]}}, key="moltbot")

    assert meta.key == "moltbot"
    assert meta.bins == ["node"]


def test_block_that_is_not_a_mapping_gives_an_empty_meta_with_its_key() -> None:
    meta = _meta(["weird"], key="clawdbot")

    assert meta == ClawHubMeta(key="clawdbot")


def test_strings_are_coerced_and_junk_dropped() -> None:
    block = {
        "os": "Linux",
        "requires": {
            "bins": ["git", 3, None, "", "  ", {"x": 1}, "git", " curl ", "x" * 201],
            "anyBins": "python3",
            "config": [["nested"]],
        },
    }

    meta = _meta(block)

    assert meta.bins == ["git", "curl"]
    assert meta.any_bins == ["python3"]
    assert meta.config == []
    assert meta.os == ["linux"]


def test_os_under_requires_is_accepted() -> None:
    assert _meta({"requires": {"os": "linux"}}).os == ["linux"]
    assert _meta({"os": ["darwin"], "requires": {"os": ["darwin", "win32"]}}).os == ["darwin", "win32"]


def test_requires_commands_count_as_bins() -> None:
    assert _meta({"requires": {"bins": ["a"], "commands": ["mcporter"]}}).bins == ["a", "mcporter"]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (["A_KEY", "B_TOKEN"], ["A_KEY", "B_TOKEN"]),
        ("SINGLE_KEY", ["SINGLE_KEY"]),
        ({"HCLOUD_TOKEN": "Hetzner Cloud API token"}, ["HCLOUD_TOKEN"]),
        ([{"name": "BROWSERCAT_API_KEY", "required": False}, {"description": "no name"}], ["BROWSERCAT_API_KEY"]),
        (["not a name", "9STARTS_WITH_DIGIT", "OK_1", 7], ["OK_1"]),
        (None, []),
    ],
)
def test_env_shapes(env: Any, expected: list[str]) -> None:
    assert _meta({"requires": {"env": env}}).env == expected


def test_env_beside_requires_and_config_required_env_are_merged() -> None:
    block = {
        "requires": {"env": ["A_KEY"]},
        "env": ["B_KEY", "A_KEY"],
        "config": {"requiredEnv": ["C_KEY"], "stateDirs": ["x"]},
    }

    assert _meta(block).env == ["A_KEY", "B_KEY", "C_KEY"]


def test_install_is_kept_as_written_and_junk_entries_dropped() -> None:
    install = [{"brew": {"formula": "idb-companion", "tap": "facebook/fb"}}, "brew install x", {}, 5]

    assert _meta({"install": install}).install == [{"brew": {"formula": "idb-companion", "tap": "facebook/fb"}}]


def test_single_install_mapping_becomes_a_list() -> None:
    assert _meta({"install": {"kind": "node", "package": "x"}}).install == [{"kind": "node", "package": "x"}]


@pytest.mark.parametrize("value", ["has space", "", 12, ["A"], None])
def test_invalid_primary_env_is_dropped(value: Any) -> None:
    assert _meta({"primaryEnv": value}).primary_env is None


@pytest.mark.parametrize(
    "block",
    [
        {"requires": "bins"},
        {"requires": ["bins"]},
        {"requires": {"bins": {"git": True}}},
        {"install": "brew install x"},
        {"os": 3},
        {"config": "x"},
        {"requires": {"env": {1: "x"}}},
        7,
        None,
        "",
    ],
)
def test_garbage_never_raises(block: Any) -> None:
    meta = _meta(block)

    assert meta.key == "openclaw"
    json.dumps(meta.model_dump())


# --- real corpus files ----------------------------------------------------------------------------


def _corpus_meta(folder: str) -> ClawHubMeta | None:
    path = OPENCLAW / folder / "SKILL.md"
    if not path.is_file():
        pytest.skip(f"development corpus file {path} is not available")
    return clawhub_meta(parse_frontmatter(path.read_text(encoding="utf-8")).data)


def test_corpus_imsg() -> None:
    meta = _corpus_meta("steipete--imsg")

    assert meta is not None
    assert meta.key == "clawdbot"
    assert meta.bins == ["imsg"]
    assert meta.os == ["darwin"]
    assert meta.install[0]["formula"] == "steipete/tap/imsg"


def test_corpus_ios_simulator_recovered_from_a_yaml_error() -> None:
    meta = _corpus_meta("tristanmanchester--ios-simulator")

    assert meta is not None
    assert meta.key == "clawdbot"
    assert meta.bins == ["xcrun"]
    assert meta.install == [{"brew": {"formula": "idb-companion", "bins": ["idb_companion"], "tap": "facebook/fb"}}]


def test_corpus_browser_ladder_env_as_list_of_objects_beside_requires() -> None:
    meta = _corpus_meta("ktpriyatham--browser-ladder")

    assert meta is not None
    assert meta.bins == ["node", "docker"]
    assert meta.env == ["BROWSERCAT_API_KEY", "BROWSERLESS_TOKEN"]


def test_corpus_skill_without_clawhub_block() -> None:
    assert _corpus_meta("mneves75--healthkit-sync") is None
