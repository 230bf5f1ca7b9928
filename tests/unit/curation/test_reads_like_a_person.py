"""Rules that read a skill as a careful person would: what the workflow does decides, not its decoration.

Every skill here is made up; each case has a near twin that the same rule must leave alone.
"""

from __future__ import annotations

from collections.abc import Callable

from skill2env.curation.compatibility import judge_compatible
from skill2env.curation.feasibility import judge_feasible
from skill2env.curation.models import Outcome
from skill2env.curation.practical import judge_practical

from .conftest import RecordFactory

Skill = Callable[..., str]

DEMO = "```bash\npython3 demo.py --example\n```\n"
STEPS = "## Steps\n\n1. Read the input.\n2. Transform it.\n3. Write the output.\n\n"


def test_a_role_play_game_is_a_persona_even_with_a_demo_block(make_record: RecordFactory, make_skill: Skill) -> None:
    game = make_skill("dungeon-tale", "A text adventure: role-play a wandering knight.", STEPS + DEMO + "Prose. " * 80)
    verdict = judge_practical(make_record(game))
    assert verdict.outcome == Outcome.fail and verdict.reasons == ["persona:no-workflow"]
    assert "role-play" in verdict.evidence[0]
    tool = make_skill("dungeon-map", "Render dungeon maps from a YAML layout.", STEPS + DEMO + "Prose. " * 80)
    assert judge_practical(make_record(tool)).outcome == Outcome.pass_


def test_writing_judged_by_taste_is_advice_despite_a_demo_block(make_record: RecordFactory, make_skill: Skill) -> None:
    essay = make_skill("proposal-coach", "Write persuasive research proposals for funding agencies.", STEPS + DEMO)
    verdict = judge_practical(make_record(essay + "Guidance. " * 80))
    assert verdict.reasons == ["advice:prose-deliverable"]
    templated = make_skill("proposal-tex", "Write research proposals from LaTeX templates.", STEPS + DEMO)
    assert judge_practical(make_record(templated + "Guidance. " * 80)).outcome == Outcome.pass_


def test_an_agent_process_skill_with_scripts_is_still_process(make_record: RecordFactory, make_skill: Skill) -> None:
    text = make_skill("plan-runner", "Use when executing implementation plans with subagents.", STEPS + DEMO)
    verdict = judge_practical(make_record(text + "Advice. " * 80, languages=["shell"]))
    assert verdict.reasons == ["advice:agent-process"]


def test_a_script_the_body_never_runs_does_not_make_a_workflow(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "## Phases\n\n1. Generate ideas.\n2. Critique them.\n3. Rank them.\n\n" + "Think hard. " * 80
    text = make_skill("critique-loop", "Critique and rank solutions to a problem.", body)
    assert judge_practical(make_record(text, languages=["python"])).reasons == ["advice:no-executable-step"]
    run = body + "Export with `python3 scripts/export.py --out analysis.md`.\n"
    text = make_skill("critique-loop", "Critique and rank solutions to a problem.", run)
    assert judge_practical(make_record(text, languages=["python"])).outcome == Outcome.pass_


def test_operating_the_live_agent_harness_needs_the_harness(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "Send the summary:\n\n```bash\nclawdbot message send --to ops 'done'\n```\n"
    verdict = judge_feasible(make_record(make_skill("notify-ops", "Tell the ops channel a job finished.", body)))
    assert verdict.reasons == ["needs:live-harness"]
    assert verdict.evidence[0].startswith("SKILL.md:9: clawdbot message send")
    described = make_skill("cron-migrate", "Turn OpenClaw cron jobs into workflow files.", "Prose. " * 40)
    assert judge_feasible(make_record(described)).reasons == ["needs:live-harness"]
    # naming the harness is not operating it
    mention = "Files live under `~/.openclaw/workspace/notes.md`; register your openclaw agent elsewhere.\n"
    assert judge_feasible(make_record(make_skill("notes", "Keep notes in Markdown.", mention))).outcome == Outcome.pass_


def test_an_optional_key_of_the_skills_own_service_means_network(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "- If you have Metro API keys, set `METRO_APP_KEY` in the environment.\n"
    verdict = judge_feasible(make_record(make_skill("metro-departures", "Plan Metro trips and delays.", body)))
    assert verdict.reasons == ["needs:network:metro"]
    other = "- Optional: set `SUMMARY_API_KEY` for nicer summaries.\n"
    verdict = judge_feasible(make_record(make_skill("metro-timetable", "Format a Metro timetable CSV.", other)))
    assert verdict.outcome == Outcome.pass_


def test_a_request_a_script_makes_is_a_dependency(make_record: RecordFactory, make_skill: Skill) -> None:
    script = '#!/bin/sh\ncurl -s "https://api.paperindex.net/query?q=$1"\n'
    text = make_skill("paper-search", "Summarise papers on a topic.", "Run `sh scripts/search.sh topic`.\n")
    verdict = judge_feasible(make_record(text, files={"scripts/search.sh": script}))
    assert verdict.reasons == ["needs:network:api.paperindex.net"]
    once = make_skill("paper-search", "Summarise papers on a topic.", "See https://api.paperindex.net/ docs.\n")
    assert judge_feasible(make_record(once)).outcome == Outcome.pass_


def test_systemd_and_docker_runtimes_are_platform_needs(make_record: RecordFactory, make_skill: Skill) -> None:
    steps = "1. Build the service.\n2. Start it.\n"
    daemon = make_skill("watchdog", "Watch processes.", steps + "```bash\nsudo systemctl enable --now watchdog\n```\n")
    assert judge_compatible(make_record(daemon, programs=["systemctl", "sudo"])).reasons == ["needs:systemd"]
    docker = make_skill("speech-to-text", "Transcribe audio with a local model (Docker).", steps)
    assert judge_compatible(make_record(docker)).reasons == ["needs:docker"]
    compose = make_skill("compose-lint", "Lint docker-compose files for common mistakes.", steps)
    assert judge_compatible(make_record(compose)).outcome == Outcome.pass_
