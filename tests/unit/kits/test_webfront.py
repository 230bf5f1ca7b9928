"""The web front-end kit: its solver earns full credit at every intensity, the naive baseline does not
once the traps are harmful, no expected result shows in the workspace, a page or a stylesheet fixed
almost right loses credit, a hostile file fails its item without breaking the check, and only skills
that work on a web front end are served."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import tempfile
from pathlib import Path

from kit_runs import materialize, rollout, score

from skill2env.kits import KITS, kit_matches
from skill2env.kits.base import FULL_CREDIT
from skill2env.kits.webfront import AUDIT, CHECK_SOURCE, KIT
from skill2env.kits.webfront.world import SITE_CSS, expected_broken_links, expected_over_budget
from skill2env.patterns.traits import SkillProfile
from skill2env.rubric.checks.python_check import load_module
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.draft import TaskDraft

SKILL = SkillRef(skill_id="s-web", name="web-perf-audit", path="web-perf-audit")


def build(seed: int, patterns: dict[str, int]) -> TaskDraft:
    return KIT.build(seed, SKILL, "software-engineering", patterns)


def solved(draft: TaskDraft, root: Path) -> Path:
    materialize(draft, root)
    subprocess.run(["bash", "-c", draft.solve_sh], env={**os.environ, "WORKSPACE": str(root)}, check=True)
    return root


def test_the_naive_baseline_is_right_on_a_world_without_harmful_traps() -> None:
    seed = next(s for s in range(40) if not KIT.world(s, {"scope_distractor": 1})[0].harmful)
    reward, items, log = rollout(build(seed, {"scope_distractor": 1}), KIT.naive_policy())
    assert reward >= FULL_CREDIT, (items, log)


def test_every_image_file_has_the_pixel_size_of_its_world_image() -> None:
    draft = build(3, {"skill_checklist_coverage": 3})
    world, _ = KIT.world(3, {"skill_checklist_coverage": 3})
    images = {i.src: i for p in world.pages for i in p.images}
    assert any(i.retina for i in images.values())
    for src, image in images.items():
        assert draft.workspace[src][:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", draft.workspace[src][16:24]) == (image.width, image.height)


def test_the_expected_audit_follows_the_build_and_the_conventions_not_the_reports() -> None:
    patterns = {"stale_derived_artifact": 3, "scope_distractor": 3}
    world, _ = KIT.world(4, patterns)
    assert world.report_over != expected_over_budget(world)
    broken = expected_broken_links(world)
    assert not any("/shop/" in link or link.endswith("blog/") for link in broken)
    assert any("#" in link for link in broken)
    with tempfile.TemporaryDirectory() as tmp:
        audit = json.loads((solved(build(4, patterns), Path(tmp)) / AUDIT).read_text())
        assert audit["over_budget"] == expected_over_budget(world) and audit["broken_links"] == broken


def test_pages_and_a_stylesheet_fixed_almost_right_lose_credit() -> None:
    draft = build(6, {"skill_checklist_coverage": 2, "conditional_branch_on_data": 2, "units_hidden_in_header": 2})
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        assert score(draft.blueprint.rubric, root)[0] >= FULL_CREDIT
        page = root / "index.html"
        fixed = page.read_text()
        page.write_text(fixed.replace('fetchpriority="high"', 'loading="lazy"', 1))
        assert score(draft.blueprint.rubric, root)[1]["pages.loading"] == 0.0
        start = fixed.index('width="', fixed.index("<main>")) + len('width="')
        page.write_text(fixed[:start] + "1" + fixed[start:])
        items = score(draft.blueprint.rubric, root)[1]
        assert items["pages.images"] == 0.0 and items["pages.loading"] == 1.0
        sheet = root / SITE_CSS
        css = sheet.read_text()
        token, value = next(iter(json.loads((root / "design/tokens.json").read_text())["color"].items()))
        sheet.write_text(css.replace(f"var(--color-{token});", f"{value.upper()};", 2))
        assert score(draft.blueprint.rubric, root)[1]["css.tokens"] == 0.0


def test_hostile_deliverables_fail_their_items_without_breaking_the_check() -> None:
    draft = build(7, dict.fromkeys(KIT.patterns, 1))
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        (root / "index.html").write_bytes(b"\xff\xfe<main><img src=" + b"x" * 2_000_000)
        (root / SITE_CSS).unlink()
        (root / SITE_CSS).symlink_to(root / "design/tokens.json")
        _, items = score(draft.blueprint.rubric, root)
        assert items["pages.images"] == 0.0 and items["pages.loading"] == 0.0 and items["css.tokens"] == 0.0
        assert items["audit.lcp"] == 1.0


def test_the_stylesheet_is_read_in_one_pass_whatever_the_agent_wrote() -> None:
    # A backtracking pattern took minutes on 200 KB without braces and on unclosed comments; the cap is 1 MiB.
    rules = load_module({"source": CHECK_SOURCE}).rules  # as the verifier loads it
    assert rules("a" * (1 << 20)) == {} and rules("/*a" * 340_000) == {} and rules("{" * (1 << 20)) == {}
    sheet = "/* tokens */ :root { --ink: #111; } a, p{color:var(--ink);color : RED } /* open { x: 1 }"
    assert rules(sheet) == {
        ":root": {"--ink": "#111"},
        "a": {"color": "red"},
        "p": {"color": "red"},
        "/* open": {"x": "1"},
    }  # an unclosed comment stays text
    draft = build(7, dict.fromkeys(KIT.patterns, 1))
    with tempfile.TemporaryDirectory() as tmp:
        root = solved(draft, Path(tmp))
        (root / SITE_CSS).write_text("/*a" * 340_000)
        assert score(draft.blueprint.rubric, root)[1]["css.tokens"] == 0.0


def _skill(name: str, text: str, **fields: object) -> dict[str, object]:
    row: dict[str, object] = {"skill_id": f"sk-{name}", "path": f"skills/{name}", "domain": "software", "name": name,
                              "description": text, "skill_md_text": text, "languages": [], "programs": [],
                              "cli_tools": [], "dependency_names": [], "extensions": [], "file_kinds": []}  # fmt: skip
    return row | fields


def test_a_front_end_skill_is_served_by_the_kit() -> None:
    skill = _skill(
        "perf-audit",
        "Audit a web app's Core Web Vitals: find the LCP element, fix layout shift from images without "
        "dimensions, lazy load below-the-fold images and keep the bundle size under budget.",
    )
    assert kit_matches(SkillProfile.from_row(skill), KITS)[0].kit == "webfront"
    tokens = _skill("tokens", "Build a design system of tokens for components.", dependency_names=["tailwindcss"])
    assert kit_matches(SkillProfile.from_row(tokens), KITS)[0].kit == "webfront"


def test_a_skill_that_only_publishes_html_or_runs_npm_is_not_served() -> None:
    for skill in (
        _skill("docs-site", "Convert Markdown documents to HTML pages and check the links of the documentation."),
        _skill("node-cli", "Run a Node command-line tool with npm and npx to rename files.", programs=["npm", "npx"]),
    ):
        match = next(m for m in kit_matches(SkillProfile.from_row(skill), KITS) if m.kit == "webfront")
        assert match.score == 0.0 and "the kit needs" in match.reason
