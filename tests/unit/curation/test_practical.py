"""Tests for criterion 1, practical value."""

from __future__ import annotations

from collections.abc import Callable

from skill2env.catalog.models import SkillStatus
from skill2env.curation.models import Criterion, Outcome
from skill2env.curation.practical import SKILL_MD_MAX_BYTES, judge_practical, skill_body, skill_subject

from .conftest import RecordFactory

WORKFLOW = """# CSV report

Turn a sales CSV export into a short Markdown report with totals per region and month.

## Steps

1. Load the CSV with pandas.
2. Compute the totals per region.
3. Write `report.md` with a table of the totals.

```bash
python scripts/report.py data.csv --out report.md
```
"""


def test_real_workflow_passes(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    verdict = judge_practical(make_record(make_skill("csv-report", "Summarise a CSV into a report.", WORKFLOW)))
    assert verdict.criterion == Criterion.practical
    assert verdict.outcome == Outcome.pass_
    assert verdict.reasons == []


def test_unreadable_skill_fails_with_its_reason(make_record: RecordFactory) -> None:
    record = make_record("", status=SkillStatus.unreadable, reason="Permission denied")
    verdict = judge_practical(record)
    assert verdict.outcome == Outcome.fail
    assert verdict.reasons == ["unreadable:permission-denied"]


def test_missing_frontmatter_fails(make_record: RecordFactory) -> None:
    verdict = judge_practical(make_record(WORKFLOW))
    assert verdict.outcome == Outcome.fail
    assert verdict.reasons == ["format:no-frontmatter"]


def test_broken_frontmatter_fails(make_record: RecordFactory) -> None:
    text = "---\nname: calc\ndescription: adds: numbers: badly\n---\n" + WORKFLOW
    verdict = judge_practical(make_record(text))
    assert "format:frontmatter-error" in verdict.reasons


def test_frontmatter_without_name_fails(make_record: RecordFactory) -> None:
    text = "---\ntitle: Report\ndescription: Summarise a CSV.\n---\n" + WORKFLOW
    verdict = judge_practical(make_record(text))
    assert verdict.reasons == ["format:missing-name"]
    assert "title" in verdict.evidence[0]


def test_huge_skill_md_fails(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    text = make_skill("big", "A big one.", WORKFLOW + "\nMore notes.\n" * (SKILL_MD_MAX_BYTES // 10))
    verdict = judge_practical(make_record(text))
    assert verdict.reasons == ["format:skillmd-too-large"]


def test_near_empty_body_is_a_stub(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    verdict = judge_practical(make_record(make_skill("tmux", "tmux helper", "test\n")))
    assert verdict.reasons == ["stub:near-empty"]


def test_placeholder_text_is_a_stub(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# My Skill\n\nTODO: describe what this skill does and when an agent should use it.\n\n"
        "## Usage\n\n[Add usage instructions here]\n\n## Examples\n\n[Add examples of requests and answers]\n"
    ) * 2
    verdict = judge_practical(make_record(make_skill("my-skill", "Your skill description here", body)))
    assert verdict.reasons == ["stub:placeholder"]


def test_spanish_todo_is_not_a_placeholder(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = WORKFLOW + "\nRevisa todo el proyecto antes de empezar.\n"
    assert judge_practical(make_record(make_skill("informe", "Informe CSV.", body))).outcome == Outcome.pass_


def test_python_module_saved_as_skill_md_is_code(make_record: RecordFactory) -> None:
    code = (
        '#!/usr/bin/env python3\n"""Memory store."""\n\nimport os\nimport json\n\n'
        "class Store:\n    def __init__(self, path):\n        self.path = path\n\n"
        "    def add(self, item):\n        with open(self.path, 'a') as handle:\n"
        "            handle.write(json.dumps(item))\n" * 3
    )
    verdict = judge_practical(make_record(code))
    assert "code:skillmd-is-code" in verdict.reasons
    assert "format:no-frontmatter" in verdict.reasons


def test_persona_without_workflow_fails(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# Molt\n\nYou are a warm and adaptive assistant named Molt.\n\n## Personality Traits\n\n"
        "- Curious and kind\n- Encouraging\n\n## Response Style\n\n- Speak with warmth and patience.\n"
        "- Offer perspectives that help users grow and see challenges as chances to learn.\n" * 2
    )
    verdict = judge_practical(make_record(make_skill("molt-identity", "Core identity for Molt.", body)))
    assert verdict.reasons == ["persona:no-workflow"]
    assert "you are a warm and adaptive assistant" in verdict.evidence[0]


def test_chinese_tutor_persona_fails(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# 语文导师\n\n你是一位经验丰富的高三语文辅导老师，擅长培养学生的阅读理解能力和写作表达能力。\n\n"
        "## 语气\n\n- 文雅、亲切、富有感染力\n- 鼓励学生独立思考，回到文本，细读关键句段，体会作者的情感和主旨。\n"
    ) * 3
    verdict = judge_practical(make_record(make_skill("tutor", "模拟高三语文辅导老师", body)))
    assert verdict.reasons == ["persona:no-workflow"]


def test_persona_with_commands_passes(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = "You are a data analysis expert.\n\n" + WORKFLOW
    assert judge_practical(make_record(make_skill("analyst", "Analyse data.", body))).outcome == Outcome.pass_


def test_marketing_text_without_procedure_fails(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# SuperTool 🚀\n\nRevolutionary, game-changing and cutting-edge! Supercharge your workflow and "
        "unlock the power of AI with our world-class, seamless platform. Buy now and transform your business "
        "with next-level results. 🔥 Limited time offer, sign up now! " * 3
    )
    verdict = judge_practical(make_record(make_skill("supertool", "The best tool ever.", body)))
    assert verdict.reasons == ["marketing:no-workflow"]


def test_feature_list_without_procedure_is_a_stub(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# Email\n\nEmail management and automation for every provider.\n\n## Features\n\n- Send emails\n"
        "- Read inbox\n- Search messages\n- Organize with labels and folders\n- Email templates\n"
        "- Bulk operations\n\n## Supported Providers\n\n- Gmail\n- Outlook\n- IMAP and SMTP servers\n"
    )
    verdict = judge_practical(make_record(make_skill("email", "Email management and automation.", body)))
    assert verdict.reasons == ["stub:no-workflow"]


def test_long_guide_without_steps_is_undecided(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# Microservices\n\n"
        + (
            "Service boundaries follow business capabilities, and each service owns its data. "
            "Communication may be synchronous or asynchronous, and resilience matters everywhere.\n\n"
        )
        * 10
    )
    verdict = judge_practical(make_record(make_skill("patterns", "Microservice patterns.", body)))
    assert verdict.outcome == Outcome.undecided
    assert verdict.reasons == ["workflow:unclear"]


def test_inline_tool_commands_are_a_procedure(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = (
        "# imsg\n\nUse `imsg` to read and send messages from the command line, as JSON for scripts.\n\n"
        "Common commands\n"
        "- List chats: `imsg chats --limit 10 --json`\n- History: `imsg history --chat-id 1 --json`\n"
        "- Send: `imsg send --to +100 --text hi`\n"
    )
    assert judge_practical(make_record(make_skill("imsg", "Message CLI.", body))).outcome == Outcome.pass_


def test_text_views(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    record = make_record(make_skill("csv-report", "Summarise a CSV.", WORKFLOW))
    assert skill_body(record).lstrip().startswith("# CSV report")
    assert skill_subject(record).splitlines()[:3] == ["csv-report", "Summarise a CSV.", "CSV report"]
    no_frontmatter = make_record("# Pi-hole\n\nControl your Pi-hole DNS ad blocker.\n\n## Setup\n")
    assert "Control your Pi-hole DNS ad blocker." in skill_subject(no_frontmatter)


def test_prose_checklist_without_anything_to_run_is_advice(
    make_record: RecordFactory, make_skill: Callable[..., str]
) -> None:
    body = (
        "# Postmortems\n\nWrite blameless postmortems after incidents.\n\n## Steps\n\n"
        "1. Gather the timeline from everyone involved.\n2. Identify contributing factors, not culprits.\n"
        "3. Agree on action items with owners.\n4. Review the draft with the team.\n"
    ) * 2
    verdict = judge_practical(make_record(make_skill("postmortems", "Postmortem writing guidance.", body)))
    assert verdict.outcome == Outcome.fail
    assert verdict.reasons == ["advice:no-executable-step"]
    assert verdict.evidence[0].startswith("SKILL.md:")
    assert "Gather the timeline" in verdict.evidence[0]


def test_agent_process_advice_fails_even_with_an_example_block(
    make_record: RecordFactory, make_skill: Callable[..., str]
) -> None:
    body = "# Executing plans\n\nLoad the plan, run each task, report.\n\n```bash\ngit status\n```\n" + WORKFLOW
    description = "Use when you have a written implementation plan to execute with review checkpoints."
    verdict = judge_practical(make_record(make_skill("executing-plans", description, body)))
    assert verdict.reasons == ["advice:agent-process"]
    assert "implementation plan" in verdict.evidence[0]


def test_agent_process_skill_with_a_concrete_procedure_passes(
    make_record: RecordFactory, make_skill: Callable[..., str]
) -> None:
    commands = "".join(f"```bash\ngit worktree add ../wt-{n} -b feature-{n}\n```\n\n" for n in range(4))
    description = "Use before executing implementation plans: create an isolated git worktree."
    record = make_record(make_skill("worktrees", description, "# Worktrees\n\n" + commands + WORKFLOW))
    assert judge_practical(record).outcome == Outcome.pass_
