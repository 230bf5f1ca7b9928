"""Tests for criterion 2, runtime compatibility with a Linux container."""

from __future__ import annotations

from collections.abc import Callable

from skill2env.catalog.models import ClawHubMeta
from skill2env.curation.compatibility import judge_compatible, need_of
from skill2env.curation.models import Criterion, Outcome

from .conftest import RecordFactory

Skill = Callable[..., str]


def test_portable_skill_passes(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "# Lint\n\nRun `ruff check .` and fix what it reports.\n\n```bash\nruff check . --fix\n```\n"
    verdict = judge_compatible(make_record(make_skill("lint", "Lint Python code with ruff.", body)))
    assert verdict.criterion == Criterion.compatible
    assert verdict.outcome == Outcome.pass_


def test_clawhub_darwin_only_fails(make_record: RecordFactory, make_skill: Skill) -> None:
    record = make_record(
        make_skill("imsg", "Message CLI.", "Use `imsg chats`.\n"),
        clawhub=ClawHubMeta(key="clawdbot", os=["darwin"]),
    )
    verdict = judge_compatible(record)
    assert verdict.outcome == Outcome.fail
    assert verdict.reasons == ["needs:macos"]
    assert "darwin" in verdict.evidence[0]


def test_clawhub_linux_listed_passes_incidental_mentions(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "Copy the result with `pbcopy` on a Mac or `xclip` elsewhere.\n\n```bash\necho ok | pbcopy\n```\n"
    record = make_record(
        make_skill("clip", "Clipboard helper.", body), clawhub=ClawHubMeta(key="openclaw", os=["darwin", "linux"])
    )
    assert judge_compatible(record).outcome == Outcome.pass_


def test_macos_subject_fails(make_record: RecordFactory, make_skill: Skill) -> None:
    body = 'Speak the answer aloud.\n\n```bash\nsay "Hello"\n```\n'
    record = make_record(make_skill("voice", "Speak responses aloud on macOS using the built-in say command.", body))
    verdict = judge_compatible(record)
    assert verdict.reasons == ["needs:macos"]


def test_macos_tools_in_body_fail_without_a_linux_path(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```bash\nosascript -e 'tell application \"Notes\" to make new note'\nshortcuts run Export\n```\n"
    assert judge_compatible(make_record(make_skill("notes", "Write notes.", body))).reasons == ["needs:macos"]


def test_explicit_macos_only_fails_even_with_linux_mentions(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "This skill is macOS only; Linux support is planned.\n"
    assert judge_compatible(make_record(make_skill("x", "A tool.", body))).reasons == ["needs:macos"]


def test_windows_only_fails(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```powershell\nGet-Service | Where-Object Status -eq Running\n```\n"
    record = make_record(make_skill("svc", "List services on Windows PCs with PowerShell.", body))
    assert judge_compatible(record).reasons == ["needs:windows"]


def test_gui_automation_fails(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```python\nimport pyautogui\npyautogui.click(100, 200)\npyautogui.typewrite('hi')\n```\n"
    assert judge_compatible(make_record(make_skill("clicker", "Click things.", body))).reasons == ["needs:gui"]


def test_headless_browser_screenshots_are_not_gui(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```python\npage.goto('http://localhost:3000')\npage.screenshot(path='shot.png')\n```\n"
    record = make_record(make_skill("webapp-testing", "Test local web apps with Playwright screenshots.", body))
    assert judge_compatible(record).outcome == Outcome.pass_


def test_explicit_gpu_requirement_fails(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "Training requires an NVIDIA GPU with 24 GB of memory.\n\n```bash\npython train.py\n```\n"
    assert judge_compatible(make_record(make_skill("train", "Fine-tune a model.", body))).reasons == ["needs:gpu"]


def test_optional_cuda_is_not_a_gpu_need(make_record: RecordFactory, make_skill: Skill) -> None:
    body = (
        "```python\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\nmodel.cuda()\n```\nMulti-GPU works too.\n"
    )
    assert judge_compatible(make_record(make_skill("gnn", "Train GNNs with PyTorch.", body))).outcome == Outcome.pass_


def test_device_in_the_subject_fails_as_hardware(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```bash\nopenhue set light Kitchen --on\n```\n"
    verdict = judge_compatible(make_record(make_skill("hue", "Control Philips Hue lights and scenes.", body)))
    assert verdict.reasons == ["needs:hardware:smart-home"]


def test_printing_documents_is_not_a_printer_need(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "Export the poster to PDF for the printer.\n\nCheck margins before sending it to the printer.\n" * 3
    record = make_record(make_skill("posters", "Create LaTeX research posters.", body))
    assert judge_compatible(record).outcome == Outcome.pass_


def test_one_incidental_mention_in_the_body_passes(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "Reminders can go anywhere (Apple Reminders, a calendar, a cron job).\n\n```bash\ncron add\n```\n"
    assert judge_compatible(make_record(make_skill("plan", "Plan tasks.", body))).outcome == Outcome.pass_


def test_need_of() -> None:
    assert need_of("macos-app") == "macos"
    assert need_of("windows-tool") == "windows"
    assert need_of("gui-automation") == "gui"
    assert need_of("gpu-required") == "gpu"
    assert need_of("hardware-serial") == "hardware"
    assert need_of("api-credential") is None
