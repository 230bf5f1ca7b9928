"""Tests for the lenient SKILL.md frontmatter parser."""

from __future__ import annotations

import json

import pytest
import yaml
from corpus import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from skill2env.catalog.frontmatter import _Loader, _simple_mapping, _to_json_safe, parse_frontmatter

OPENCLAW = CORPUS / "openclaw-skills"


def _corpus_text(relative: str) -> str:
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"development corpus file {path} is not available")
    return path.read_text(encoding="utf-8", errors="replace")


# --- well-formed input ----------------------------------------------------------------------------


def test_plain_frontmatter_is_split_from_the_body() -> None:
    parsed = parse_frontmatter("---\nname: pdf-tools\ndescription: Work with PDFs.\n---\n# PDF\n\nUse it.\n")

    assert parsed.status == "ok"
    assert parsed.raw == "name: pdf-tools\ndescription: Work with PDFs."
    assert parsed.data == {"name": "pdf-tools", "description": "Work with PDFs."}
    assert parsed.body == "# PDF\n\nUse it.\n"
    assert parsed.error is None


def test_text_without_frontmatter_is_all_body() -> None:
    parsed = parse_frontmatter("# Title\n\nname: not frontmatter\n")

    assert parsed.status == "none"
    assert parsed.raw is None
    assert parsed.data == {}
    assert parsed.body == "# Title\n\nname: not frontmatter\n"
    assert parsed.error is None


def test_horizontal_rule_of_four_dashes_is_not_a_fence() -> None:
    assert parse_frontmatter("----\nname: x\n----\n").status == "none"


def test_bom_crlf_leading_blank_lines_and_trailing_spaces_are_tolerated() -> None:
    text = "\ufeff\r\n\r\n---  \r\nname: a\r\ndescription: b\r\n---\t\r\nBody\r\n"

    parsed = parse_frontmatter(text)

    assert parsed.status == "ok"
    assert parsed.data == {"name": "a", "description": "b"}
    assert parsed.raw == "name: a\ndescription: b"
    assert parsed.body == "Body\n"


def test_lone_cr_line_endings_are_normalised() -> None:
    parsed = parse_frontmatter("---\rname: a\r---\rbody")

    assert parsed.data == {"name": "a"}
    assert parsed.body == "body"


def test_yaml_document_end_marker_closes_the_frontmatter() -> None:
    parsed = parse_frontmatter("---\nname: a\n...\nBody\n")

    assert parsed.status == "ok"
    assert parsed.data == {"name": "a"}
    assert parsed.body == "Body\n"


def test_empty_frontmatter_is_an_empty_mapping() -> None:
    parsed = parse_frontmatter("---\n---\nBody")

    assert parsed.status == "ok"
    assert parsed.raw == ""
    assert parsed.data == {}
    assert parsed.body == "Body"


def test_comment_only_frontmatter_is_an_empty_mapping() -> None:
    assert parse_frontmatter("---\n# nothing here\n---\n").data == {}


def test_nested_mappings_and_lists_are_kept() -> None:
    parsed = parse_frontmatter('---\nname: a\nmetadata:\n  tags: [x, y]\n  author: "me"\n---\n')

    assert parsed.data == {"name": "a", "metadata": {"tags": ["x", "y"], "author": "me"}}


def test_first_closing_fence_wins() -> None:
    parsed = parse_frontmatter("---\nname: a\n---\nbody\n---\nmore\n")

    assert parsed.data == {"name": "a"}
    assert parsed.body == "body\n---\nmore\n"


# --- JSON safety ----------------------------------------------------------------------------------


def test_values_are_made_json_safe() -> None:
    text = (
        "---\n"
        "created: 2026-01-25\n"
        "updated: 2026-01-25 10:30:00\n"
        "2: numeric key\n"
        "true: bool key\n"
        "ratio: .nan\n"
        "limit: .inf\n"
        "blob: !!binary aGVsbG8=\n"
        "set: !!set {a: null}\n"
        "---\n"
    )

    data = parse_frontmatter(text).data

    assert data["created"] == "2026-01-25"
    assert data["updated"] == "2026-01-25T10:30:00"
    assert data["2"] == "numeric key"
    assert data["true"] == "bool key"
    assert data["ratio"] == "nan"
    assert data["limit"] == "inf"
    assert data["blob"] == "hello"
    assert data["set"] == ["a"]
    json.dumps(data, allow_nan=False)


def test_date_keys_become_iso_strings() -> None:
    assert parse_frontmatter("---\n2024-05-01: release\n---\n").data == {"2024-05-01": "release"}


def test_self_referencing_anchor_does_not_hang_and_stays_json_safe() -> None:
    parsed = parse_frontmatter("---\nname: a\nloop: &x [*x]\n---\n")

    assert parsed.status == "ok"
    assert parsed.data["name"] == "a"
    json.dumps(parsed.data)


def test_alias_bomb_is_rejected_as_too_complex_but_keys_are_recovered() -> None:
    rows = ["a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]"]
    for previous, current in zip("abcde", "bcdef", strict=True):
        rows.append(f"{current}: &{current} [" + ", ".join([f"*{previous}"] * 9) + "]")
    parsed = parse_frontmatter("---\nname: bomb\n" + "\n".join(rows) + "\n---\n")

    assert parsed.status == "yaml_error"
    assert "more than" in (parsed.error or "")
    assert parsed.data["name"] == "bomb"
    json.dumps(parsed.data)


# --- broken YAML ----------------------------------------------------------------------------------


def test_unquoted_colon_is_a_yaml_error_and_scalars_are_recovered() -> None:
    text = "---\nname: discord\ndescription: Use the tool: send messages\nversion: 2\n---\nBody\n"

    parsed = parse_frontmatter(text)

    assert parsed.status == "yaml_error"
    assert parsed.error is not None
    assert parsed.error.startswith("ScannerError: mapping values are not allowed")
    assert "\n" not in parsed.error
    assert parsed.data == {"name": "discord", "description": "Use the tool: send messages", "version": 2}
    assert parsed.body == "Body\n"


def test_recovery_keeps_valid_multiline_entries_and_drops_broken_ones() -> None:
    text = (
        "---\n"
        "name: 'quoted-name'\n"
        "description: ok\n"
        "metadata:\n"
        "  requires: [broken\n"
        "tags:\n"
        "  - a\n"
        "  - b\n"
        "bad: : :\n"
        "---\n"
    )

    parsed = parse_frontmatter(text)

    assert parsed.status == "yaml_error"
    assert parsed.data["name"] == "quoted-name"
    assert parsed.data["description"] == "ok"
    assert parsed.data["tags"] == ["a", "b"]
    assert "metadata" not in parsed.data
    assert parsed.data["bad"] == ": :"


def test_first_occurrence_of_a_duplicated_key_wins_in_recovery() -> None:
    parsed = parse_frontmatter("---\nname: first\nname: second\nx: [\n---\n")

    assert parsed.data["name"] == "first"


def test_missing_closing_fence_is_an_error_with_keys_up_to_the_first_blank_line() -> None:
    parsed = parse_frontmatter("---\nname: x\ndescription: y\n\n# Title\n\nText\n")

    assert parsed.status == "yaml_error"
    assert parsed.error == "frontmatter has an opening '---' but no closing fence"
    assert parsed.raw == "name: x\ndescription: y"
    assert parsed.data == {"name": "x", "description": "y"}
    assert parsed.body == "# Title\n\nText\n"


def test_opening_fence_alone_is_an_empty_unterminated_frontmatter() -> None:
    parsed = parse_frontmatter("---")

    assert parsed.status == "yaml_error"
    assert parsed.data == {}
    assert parsed.body == ""


def test_list_frontmatter_is_not_a_mapping() -> None:
    parsed = parse_frontmatter("---\n- a\n- b\n---\nbody")

    assert parsed.status == "not_mapping"
    assert parsed.data == {}
    assert parsed.raw == "- a\n- b"
    assert parsed.body == "body"
    assert parsed.error == "frontmatter is a YAML list, not a mapping"


def test_scalar_frontmatter_is_not_a_mapping() -> None:
    parsed = parse_frontmatter("---\njust a sentence\n---\n")

    assert parsed.status == "not_mapping"
    assert parsed.error == "frontmatter is a YAML scalar, not a mapping"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\ufeff",
        "---\n\x00\x01\x02\n---\n",
        "---\n{{{{\n---\n",
        "---\n" + "[" * 5000 + "\n---\n",
        "---\n: :\n---\n",
        "---\n!!python/object:os.system ls\n---\n",
        "---\nkey: !!python/name:os.system\n---\n",
        "\n\n\n",
    ],
)
def test_garbage_never_raises(text: str) -> None:
    parsed = parse_frontmatter(text)

    assert parsed.status in {"ok", "none", "yaml_error", "not_mapping"}
    json.dumps(parsed.data)


def test_non_text_input_never_raises() -> None:
    assert parse_frontmatter(b"---\nname: a\n---\nx").data == {"name": "a"}  # type: ignore[arg-type]
    assert parse_frontmatter(None).status == "none"  # type: ignore[arg-type]


def test_python_tags_are_not_executed() -> None:
    parsed = parse_frontmatter("---\nname: a\nx: !!python/object/apply:os.system ['echo hi']\n---\n")

    assert parsed.status == "yaml_error"
    assert parsed.data["name"] == "a"
    assert parsed.data["x"] == "!!python/object/apply:os.system ['echo hi']"


# --- real corpus files ----------------------------------------------------------------------------


def test_corpus_discord_unquoted_colon_in_description() -> None:
    parsed = parse_frontmatter(_corpus_text("openclaw-skills/steipete--discord/SKILL.md"))

    assert parsed.status == "yaml_error"
    assert parsed.data["name"] == "discord"
    assert parsed.data["description"].startswith("Use when you need to control Discord from Clawdbot")
    assert parsed.data["description"].endswith("in Discord DMs or channels.")
    assert parsed.body.lstrip().startswith("# Discord Actions")


def test_corpus_chinese_description_with_colon() -> None:
    parsed = parse_frontmatter(_corpus_text("openclaw-skills/cnyezi--a-stock-analysis/SKILL.md"))

    assert parsed.status == "yaml_error"
    assert parsed.data["name"] == "a-stock-analysis"
    assert parsed.data["description"].startswith("A股实时行情与分时量能分析")


def test_corpus_ios_simulator_keeps_its_inline_json_metadata() -> None:
    parsed = parse_frontmatter(_corpus_text("openclaw-skills/tristanmanchester--ios-simulator/SKILL.md"))

    assert parsed.status == "yaml_error"
    assert parsed.data["name"] == "ios-simulator"
    clawdbot = parsed.data["metadata"]["clawdbot"]
    assert clawdbot["os"] == ["darwin"]
    assert clawdbot["requires"] == {"bins": ["xcrun"]}


def test_corpus_evilcalc_broken_metadata_is_kept_as_text() -> None:
    parsed = parse_frontmatter(_corpus_text("openclaw-skills/fobonacci404--evilcalc/SKILL.md"))

    assert parsed.status == "yaml_error"
    assert "unhashable key" in (parsed.error or "")
    assert parsed.data["name"] == "calculator"
    assert parsed.data["homepage"] == "https://example.com/calculator"
    assert parsed.data["metadata"].startswith('{"clawdbot":')
    assert parsed.body.lstrip().startswith("# Calculator")
    assert "\r" not in parsed.body


def test_corpus_skill_without_frontmatter() -> None:
    text = _corpus_text("openclaw-skills/baanish--pihole/SKILL.md")

    parsed = parse_frontmatter(text)

    assert parsed.status == "none"
    assert parsed.body == text


def test_corpus_well_formed_skill() -> None:
    parsed = parse_frontmatter(_corpus_text("anthropics-skills/canvas-design/SKILL.md"))

    assert parsed.status == "ok"
    assert parsed.data["name"] == "canvas-design"
    assert parsed.data["license"] == "Complete terms in LICENSE.txt"


def test_corpus_every_skill_md_parses_without_raising() -> None:
    if not OPENCLAW.is_dir():
        pytest.skip(f"development corpus {CORPUS} is not available")
    statuses: dict[str, int] = {}
    for path in sorted(CORPUS.glob("*/*/SKILL.md")):
        parsed = parse_frontmatter(path.read_text(encoding="utf-8", errors="replace"))
        json.dumps(parsed.data)
        statuses[parsed.status] = statuses.get(parsed.status, 0) + 1

    assert statuses.get("yaml_error") == 4
    assert statuses.get("not_mapping", 0) == 0


# --- the fast path for simple blocks agrees with the YAML parser ------------------------------

_KEYS = st.sampled_from(["name", "description", "license", "version", "on", "Yes", "NULL", "x_y", "a-b", "y"])
_VALUE_CHARS = st.sampled_from(
    [*list("aZ09 :#'\"-[]{},&*!|>%@`\\\t.~é\xa0"), "true", "No", "null", "1.5", "2024-01-02"]
)
_FIRST_CHARS = st.sampled_from(["a", "Z", "e", "Yes", "on", "é", "'", '"', "1", "-", "~", ""])
_VALUES = st.tuples(_FIRST_CHARS, st.lists(st.one_of(st.sampled_from("ab  "), _VALUE_CHARS), max_size=10)).map(
    lambda parts: parts[0] + "".join(parts[1])
)


@given(st.lists(st.tuples(_KEYS, _VALUES, st.sampled_from([": ", ": ", ":  ", ":", " : "])), min_size=1, max_size=3))
@settings(max_examples=1000, deadline=None)
def test_the_simple_block_fast_path_reads_what_yaml_reads(entries: list[tuple[str, str, str]]) -> None:
    raw = "\n".join(f"{key}{colon}{value}" for key, value, colon in entries)
    fast = _simple_mapping(raw)
    if fast is None:
        return  # left to the YAML parser
    assert fast == _to_json_safe(yaml.load(raw, Loader=_Loader), 0, [0])


def test_the_fast_path_takes_common_blocks_and_leaves_the_rest_to_yaml() -> None:
    common = 'name: pdf-tools\ndescription: Fill, merge and split PDF files. Use when asked about PDFs.\nlicense: "MIT"'
    assert _simple_mapping(common) == {
        "name": "pdf-tools",
        "description": "Fill, merge and split PDF files. Use when asked about PDFs.",
        "license": "MIT",
    }
    left_to_yaml = (
        "name: x\ndescription: yes",
        "version: 1.0",
        "name: x\nmetadata:\n  a: b",
        "name: a: b",
        "on: push",
        "name: x # note",
        "description: 'it''s'",
        'description: "a\\tb"',
        "name: x\n\ndescription: y",
    )
    for raw in left_to_yaml:
        assert _simple_mapping(raw) is None, raw
        assert parse_frontmatter(f"---\n{raw}\n---\nbody").status in ("ok", "yaml_error")
