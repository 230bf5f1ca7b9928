"""Tests for requirement extraction: programs, CLI tools, packages and env vars."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus import OPENCLAW

from skill2env.catalog.clawhub import clawhub_meta
from skill2env.catalog.frontmatter import parse_frontmatter
from skill2env.catalog.models import ClawHubMeta
from skill2env.catalog.requirements import (
    KNOWN_PROGRAMS,
    MAX_SCAN_CHARS,
    Requirements,
    TextSource,
    extract_requirements,
)


def _extract(*sources: TextSource, frontmatter: dict[str, Any] | None = None, clawhub: ClawHubMeta | None = None):
    return extract_requirements(list(sources), frontmatter or {}, clawhub)


def _md(text: str, path: str = "SKILL.md") -> TextSource:
    return TextSource(path, text, "markdown")


def _bash(code: str, fence: str = "bash") -> TextSource:
    return _md(f"# Skill\n\n```{fence}\n{code}\n```\n")


def _tools(code: str, fence: str = "bash") -> list[str]:
    return _extract(_bash(code, fence)).cli_tools


def _deps(*sources: TextSource) -> list[tuple[str, str]]:
    return [(d.ecosystem, d.name) for d in _extract(*sources).dependencies]


def _env(*sources: TextSource) -> list[str]:
    return _extract(*sources).env_vars


# --- shell commands -------------------------------------------------------------------------------


def test_commands_in_a_bash_block() -> None:
    result = _extract(_bash("git clone https://x/y.git\ncd y\nopenhue get light --json | jq '.[] | .name'"))

    assert result.cli_tools == ["git", "jq", "openhue"]
    assert result.programs == ["git", "jq"]


@pytest.mark.parametrize("fence", ["bash", "sh", "shell", "zsh", "BASH", "{bash}", "bash title=setup.sh"])
def test_shell_fence_languages(fence: str) -> None:
    assert _tools("ffmpeg -i in.mp4 out.mp3", fence) == ["ffmpeg"]


def test_non_shell_fences_are_not_commands() -> None:
    assert _tools("ffmpeg -i in.mp4 out.mp3", "yaml") == []
    assert _tools("ffmpeg -i in.mp4 out.mp3", "json") == []


def test_pipelines_lists_and_substitutions_all_count() -> None:
    code = "curl -s $URL | jq .x && echo ok || rg foo; wc -l $(fd -e md) `date`"

    assert _tools(code) == ["curl", "date", "fd", "jq", "rg", "wc"]


def test_builtins_and_keywords_are_skipped() -> None:
    code = (
        "set -euo pipefail\nexport A=1\nsource .env\n. ./lib.sh\nif [ -f x ]; then\n  echo hi\nfi\n"
        "for f in *.md; do printf '%s' $f; done\nwhile read -r line; do :; done < x\nlocal y=2\ntrue\n"
    )

    assert _tools(code) == []


def test_prefixes_sudo_env_time_nohup_xargs_timeout() -> None:
    code = (
        "sudo -u www apt-get update\nenv -i FOO=1 BAR=2 node app.js\ntime make build\n"
        "nohup python3 server.py &\nfind . -name '*.py' | xargs -I {} black {}\ntimeout 30s pytest -q\n"
        "DEBUG=1 LOG=2 uv run main.py\nexec gunicorn app\ncommand docker ps"
    )

    assert _tools(code) == [
        "apt-get", "black", "docker", "env", "find", "gunicorn", "make", "node", "nohup", "pytest",
        "python3", "sudo", "timeout", "uv", "xargs",
    ]  # fmt: skip


def test_command_lookups_name_the_looked_up_tools() -> None:
    code = "command -v jq >/dev/null || exit 1\nwhich ffmpeg\ntype -p gh\nhash rg 2>/dev/null"

    assert _tools(code) == ["ffmpeg", "gh", "jq", "rg", "which"]


def test_paths_scripts_and_absolute_programs() -> None:
    code = "./run.sh --fast\nscripts/build.py\n/usr/bin/git status\n~/.local/bin/uv sync\n"
    code += ".venv/bin/python x.py\nsetup.sh"

    assert _tools(code) == ["git", "python", "uv"]


def test_names_are_lowercased_and_junk_rejected() -> None:
    code = "Rscript analysis.R\nGET /api/v1/items\nEOF\n123\n<your-command> arg\n-flag\nfoo=bar"

    assert _tools(code) == ["rscript"]


def test_shell_functions_defined_in_the_skill_are_not_tools() -> None:
    code = 'calc() {\n  echo "$1" | bc\n}\nfunction deploy {\n  rsync -a . host:\n}\ncalc 1+1\ndeploy'

    assert _tools(code) == ["bc", "rsync"]


def test_heredoc_bodies_are_data() -> None:
    code = "cat > config.yaml <<'EOF'\nname: x\nrun this now\nEOF\npython3 - <<EOF\nimport os\nEOF\nls"

    assert _tools(code) == ["cat", "ls", "python3"]


def test_quoted_operators_do_not_split_commands() -> None:
    code = (
        "jq '.items[] | select(.ok) | .name' f.json\nawk '{print $1; exit}' f\n"
        'echo "a | b; c && d (e)"\ngit commit -m "fix: thing (closes #1)"'
    )

    assert _tools(code) == ["awk", "git", "jq"]


def test_command_substitution_inside_double_quotes_counts_but_the_rest_of_the_string_does_not() -> None:
    code = 'echo "Found $(wc -l < f.txt) lines in total"\nVERSION="$(git describe --tags)"'

    assert _tools(code) == ["git", "wc"]


def test_words_after_a_closing_parenthesis_are_arguments() -> None:
    assert _tools("cat $(ls -td ~/b/*/ | head -1)/INFO.txt") == ["cat", "head", "ls"]


def test_comments_are_ignored() -> None:
    assert _tools("# docker run it\nls # then terraform apply\necho a#b") == ["ls"]


def test_line_continuation_joins_a_command() -> None:
    code = 'python generate.py \\\n  "Step 1: grind (coffee icon), \\\n   Step 2: brew" \\\n  --out x.png'

    assert _tools(code) == ["python"]


def test_case_patterns_are_not_commands() -> None:
    code = 'case "$1" in\n  start) systemctl start app ;;\n  stop|halt) pkill app ;;\n  *) usage ;;\nesac'

    assert _tools(code) == ["pkill", "systemctl", "usage"]


def test_template_placeholders_and_arrays_are_not_commands() -> None:
    code = 'uv run {baseDir}/scripts/analyze.py 600789\nphrases=(\n  "Good morning"\n  "Thank you"\n)\n$((count + 1))'

    assert _tools(code) == ["uv"]


def test_console_block_reads_only_prompt_lines() -> None:
    code = "$ kubectl get pods\nNAME   READY\nweb    1/1\n$ helm list"

    assert _tools(code, "console") == ["helm", "kubectl"]


def test_console_block_without_prompts_is_all_commands() -> None:
    assert _tools("docker compose up -d", "console") == ["docker"]


def test_untagged_block_reads_prompt_and_install_lines_only() -> None:
    code = "project/\n  README.md\nmake sure this works\n$ tree -L 2\npip install requests\nsudo apt install -y jq"

    result = _extract(_bash(code, fence=""))

    assert result.cli_tools == ["apt", "pip", "sudo", "tree"]
    assert [(d.ecosystem, d.name) for d in result.dependencies] == [("apt", "jq"), ("pip", "requests")]


@pytest.mark.parametrize(
    ("line", "dependency"),
    [
        ("pip install a", ("pip", "a")), ("pip3.12 install a", ("pip", "a")),
        ("python3 -m pip install a", ("pip", "a")), ("uv pip install a", ("pip", "a")),
        ("uv add a", ("pip", "a")), ("uvx a", ("pip", "a")), ("pipx install a", ("pip", "a")),
        ("gem install a", ("gem", "a")), ("brew install a", ("brew", "a")), ("apt-get install a", ("apt", "a")),
        ("dnf install a", ("rpm", "a")), ("yum install a", ("rpm", "a")), ("npm i a", ("npm", "a")),
        ("pnpm add a", ("npm", "a")), ("bun add a", ("npm", "a")), ("yarn add a", ("npm", "a")),
        ("npx a", ("npm", "a")), ("cargo install a", ("cargo", "a")), ("go install x.io/a@v1", ("go", "x.io/a")),
        ("conda install a", ("conda", "a")), ("mamba install a", ("conda", "a")),
        ("micromamba install a", ("conda", "a")), ("composer require v/a", ("composer", "v/a")),
        ("dotnet add package A", ("nuget", "a")), ("apk add a", ("apk", "a")), ("sudo apt install a", ("apt", "a")),
    ],
)  # fmt: skip
def test_every_install_command_is_picked_from_a_plain_block(line: str, dependency: tuple[str, str]) -> None:
    assert _deps(_bash(line, fence="")) == [dependency]


def test_unclosed_fence_runs_to_the_end_of_the_file() -> None:
    assert _extract(_md("# X\n\n```bash\necho 3 | bc\n")).cli_tools == ["bc"]


def test_tilde_fences_and_indented_fences() -> None:
    text = "~~~bash\ncurl x\n~~~\n\n1. Step\n   ```sh\n   wget y\n   ```\n"

    assert _extract(_md(text)).cli_tools == ["curl", "wget"]


def test_tilde_block_ignores_backtick_fences_inside() -> None:
    text = "~~~bash\ncurl a\n```\n~~~\n```sh\nwget b\n```\nsee ~/path\n"

    assert _extract(_md(text)).cli_tools == ["curl", "wget"]


def test_backticks_after_text_on_a_line_are_not_a_fence() -> None:
    text = "Use ```bash blocks``` like this:\n\n  ```bash\n  wget y\n  ```\n\nthen `gh pr list`\n"

    assert _extract(_md(text)).cli_tools == ["bash", "gh", "wget"]


def test_an_opening_fence_line_stays_part_of_the_prose() -> None:
    # Inline code may start in the info string: here `bash # needs ` is read as a command.
    text = "# X\n\n```bash # needs `gh`\necho hi\n```\n"

    assert _extract(_md(text)).cli_tools == ["bash"]


def test_console_blocks_with_and_without_prompts() -> None:
    text = "```console\nkubectl get pods\n```\n\n```terminal\n$ helm list\nNAME  STATUS\n```\n"

    assert _extract(_md(text)).cli_tools == ["helm", "kubectl"]


def test_plain_block_without_commands_keeps_later_line_numbers() -> None:
    text = "# X\n\n```bash\ncurl x\n```\n\n```\nproject/\n  a.md\n```\n\n```bash\npip install requests\n```\n"

    result = _extract(_md(text))

    assert result.cli_tools == ["curl", "pip"]
    assert [(d.name, d.source) for d in result.dependencies] == [("requests", "SKILL.md:13")]


def test_crlf_markdown() -> None:
    text = "# X\r\n\r\n```bash\r\ngit status\r\n```\r\n\r\n```bash\r\nmake\r\n```\r\n"

    assert _extract(_md(text)).cli_tools == ["git", "make"]


def test_inline_code_with_a_known_program_counts_but_prose_words_do_not() -> None:
    text = "Run `gh pr list` then `openhue get light`. The `discord` tool and `make` alone do not count."

    assert _extract(_md(text)).cli_tools == ["gh"]


def test_shell_script_files() -> None:
    script = TextSource("scripts/run.sh", "#!/usr/bin/env bash\nset -e\nffmpeg -i a b\n", "shell")

    assert _extract(script).cli_tools == ["bash", "ffmpeg"]


def test_a_quoted_escape_sequence_is_not_a_command() -> None:
    """`;` inside quotes splits nothing: `31m'` of `RED='\\033[0;31m'` is no program."""
    code = 'RED=\'\\033[0;31m\'\nGREEN="\\033[0;32m"\necho -e "${RED}fail"\njq . x.json\n'
    script = TextSource("scripts/audit.sh", code, "shell")
    found = _extract(_md("# Audit"), script)
    assert found.programs == ["jq"] and found.cli_tools == ["jq"]


def test_shell_script_detected_by_shebang_or_extension_without_language() -> None:
    by_shebang = TextSource("bin/tool", "#!/bin/sh\ntesseract in.png out\n", None)
    by_extension = TextSource("x.zsh", "pandoc a.md -o a.pdf\n", None)

    assert _extract(by_shebang, by_extension).cli_tools == ["pandoc", "sh", "tesseract"]


def test_shebang_interpreters() -> None:
    python = TextSource("a.py", "#!/usr/bin/env python3\nprint(1)\n", "python")
    uv_script = TextSource("b.py", "#!/usr/bin/env -S uv run --script\nprint(1)\n", "python")
    node = TextSource("c.js", "#!/usr/local/bin/node\n", "javascript")

    result = _extract(python, uv_script, node)

    assert result.cli_tools == ["node", "python3", "uv"]
    assert result.programs == ["node", "python3", "uv"]


def test_dockerfile_run_lines() -> None:
    dockerfile = TextSource(
        "Dockerfile", "FROM python:3.12\nRUN apt-get update && \\\n    apt-get install -y ffmpeg\nCMD x\n", None
    )

    result = _extract(dockerfile)

    assert result.cli_tools == ["apt-get"]
    assert [(d.ecosystem, d.name, d.source) for d in result.dependencies] == [("apt", "ffmpeg", "Dockerfile:2")]


def test_dockerfile_line_numbers_skip_other_instructions() -> None:
    text = "FROM node:20\n\nENV A=1\nWORKDIR /app\nrun npm install -g pnpm\n"

    result = _extract(TextSource("docker/Dockerfile", text, "dockerfile"))

    assert [(d.ecosystem, d.name, d.source) for d in result.dependencies] == [("npm", "pnpm", "docker/Dockerfile:5")]


def test_evidence_comes_from_the_language_whose_first_block_comes_first() -> None:
    # The untagged block (read as shell) comes first, so the shell blocks are read before Python's.
    python_first = "# X\n\n```python\nfrom PIL import Image\n```\n\n```bash\npip install pillow\n```\n"
    shell_first = python_first.replace("# X\n", "# X\n\n```\ntree/\n```\n", 1)

    assert [d.source for d in _extract(_md(shell_first)).dependencies] == ["SKILL.md:12"]
    assert [d.source for d in _extract(_md(python_first)).dependencies] == ["SKILL.md:4"]


def test_dockerfile_without_run_lines() -> None:
    fence = _md('```dockerfile\nFROM alpine\nCMD ["sh"]\n```\n')
    dockerfile = TextSource("Dockerfile", "FROM alpine\n", None)

    assert _extract(fence, dockerfile) == Requirements()


def test_dockerfile_fence_in_markdown() -> None:
    text = "# X\n\n```dockerfile\nFROM alpine\nRUN apk add --no-cache curl\n```\n"

    result = _extract(_md(text))

    assert result.cli_tools == ["apk"]
    assert [(d.name, d.source) for d in result.dependencies] == [("curl", "SKILL.md:5")]


def test_allowed_tools_bash_patterns_name_tools() -> None:
    frontmatter = {"allowed-tools": "Read, Bash(git add:*), Bash(npm run test:*), Bash( gh pr create:*)"}

    assert _extract(frontmatter=frontmatter).cli_tools == ["gh", "git", "npm"]
    assert _extract(frontmatter={"allowed-tools": ["Bash(docker:*)", "Write"]}).cli_tools == ["docker"]


def test_programs_are_the_known_subset_of_cli_tools() -> None:
    result = _tools("mytool --x\ngit pull\nbw unlock")

    assert result == ["bw", "git", "mytool"]
    assert _extract(_bash("mytool --x\ngit pull\nbw unlock")).programs == ["git"]


def test_curated_program_list_is_large_and_lowercase() -> None:
    assert len(KNOWN_PROGRAMS) >= 150
    assert all(name == name.lower() for name in KNOWN_PROGRAMS)
    for name in ("git", "curl", "ffmpeg", "pdftotext", "jq", "docker", "node", "python3", "soffice", "yt-dlp"):
        assert name in KNOWN_PROGRAMS


# --- install commands -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("pip install requests 'pandas>=2.0' numpy==1.26 Pillow[extra]", [
            ("pip", "numpy"), ("pip", "pandas"), ("pip", "pillow"), ("pip", "requests")]),
        ("pip3 install -U --user Flask_SQLAlchemy", [("pip", "flask-sqlalchemy")]),
        ("python3 -m pip install -r requirements.txt httpx", [("pip", "httpx")]),
        ("pip install -e . -i https://pypi.example/simple torch", [("pip", "torch")]),
        ("pip install git+https://github.com/x/y.git ./local.whl", []),
        ("uv pip install --system polars", [("pip", "polars")]),
        ("uv add 'fastapi[standard]' uvicorn", [("pip", "fastapi"), ("pip", "uvicorn")]),
        ("uv tool install ruff", [("pip", "ruff")]),
        ("uv run --with rich --with tqdm main.py", [("pip", "rich"), ("pip", "tqdm")]),
        ("uvx --from markitdown[all] markitdown file.pdf", [("pip", "markitdown")]),
        ("uvx black .", [("pip", "black")]),
        ("pipx install poetry", [("pip", "poetry")]),
        ("npm install -g @anthropic-ai/claude-code typescript@5.4", [
            ("npm", "@anthropic-ai/claude-code"), ("npm", "typescript")]),
        ("npm i -D vitest", [("npm", "vitest")]),
        ("npm install", []),
        ("npm install user/repo ./pkg.tgz", []),
        ("npx -y @modelcontextprotocol/inspector node build/index.js", [("npm", "@modelcontextprotocol/inspector")]),
        ("npx --package=cowsay cowsay hi", [("npm", "cowsay")]),
        ("pnpm add zod", [("npm", "zod")]),
        ("pnpm dlx create-vite app", [("npm", "create-vite")]),
        ("yarn add react react-dom", [("npm", "react"), ("npm", "react-dom")]),
        ("yarn global add serve", [("npm", "serve")]),
        ("bun add hono", [("npm", "hono")]),
        ("cargo install ripgrep --locked --version 14.0", [("cargo", "ripgrep")]),
        ("cargo add serde_json tokio@1 -F full", [("cargo", "serde-json"), ("cargo", "tokio")]),
        ("go install github.com/steipete/eightctl/cmd/eightctl@latest", [
            ("go", "github.com/steipete/eightctl/cmd/eightctl")]),
        ("go get -u golang.org/x/tools/...", [("go", "golang.org/x/tools")]),
        ("go install ./...", []),
        ("gem install bundler -v 2.5", [("gem", "bundler")]),
        ("sudo apt-get install -y --no-install-recommends poppler-utils libreoffice=1:7.0", [
            ("apt", "libreoffice"), ("apt", "poppler-utils")]),
        ("apt install tesseract-ocr", [("apt", "tesseract-ocr")]),
        ("brew install steipete/tap/imsg FFmpeg", [("brew", "ffmpeg"), ("brew", "steipete/tap/imsg")]),
        ("brew install --cask docker", [("brew", "docker")]),
        ("brew tap facebook/fb", []),
        ("conda install -c conda-forge -y rdkit openmm=8.1 bioconda::samtools", [
            ("conda", "openmm"), ("conda", "rdkit"), ("conda", "samtools")]),
        ("mamba install numpy", [("conda", "numpy")]),
        ("composer require guzzlehttp/guzzle:^7.0", [("composer", "guzzlehttp/guzzle")]),
        ("dotnet add package Newtonsoft.Json --version 13.0.1", [("nuget", "newtonsoft.json")]),
        ("dotnet add MyProj.csproj package Anthropic", [("nuget", "anthropic")]),
        ("dnf install -y jq", [("rpm", "jq")]),
        ("apk add --no-cache git", [("apk", "git")]),
        ("pacman -S --noconfirm ffmpeg", [("pacman", "ffmpeg")]),
        ("pacman -Ss ffmpeg", []),
        ("python -m markitdown file.pdf", [("pip", "markitdown")]),
        ("python -m http.server 8000", []),
        ("pip install <package>", []),
        ("pip install $PKG", []),
        ("pip install package-name", []),
    ],
)  # fmt: skip
def test_install_commands(line: str, expected: list[tuple[str, str]]) -> None:
    assert _deps(_bash(line)) == expected


def test_install_command_in_inline_code() -> None:
    text = "Install it with `pip install edge-tts` or `brew install ffmpeg`."

    result = _extract(_md(text))

    assert [(d.ecosystem, d.name, d.source) for d in result.dependencies] == [
        ("brew", "ffmpeg", "SKILL.md"),
        ("pip", "edge-tts", "SKILL.md"),
    ]
    assert result.cli_tools == ["brew", "pip"]


def test_dependency_source_is_the_first_place_seen_with_its_line() -> None:
    skill = _md("# X\n\nIntro\n\n```bash\nls\npip install requests\n```\n")
    reference = _md("```bash\npip install requests httpx\n```\n", path="references/setup.md")

    result = _extract(skill, reference)

    assert [(d.name, d.source) for d in result.dependencies] == [
        ("httpx", "references/setup.md:2"),
        ("requests", "SKILL.md:7"),
    ]


def test_dependency_line_numbers_after_multiline_rewrites() -> None:
    code = "cat <<EOF\na\nb\nEOF\necho 'x\ny'\nnpm install -g left-pad"

    result = _extract(_bash(code))

    assert [d.source for d in result.dependencies] == ["SKILL.md:10"]


def test_dependencies_are_sorted_and_unique() -> None:
    code = "pip install b a\nnpm i z\npip install a\nbrew install c"

    assert _deps(_bash(code)) == [("brew", "c"), ("npm", "z"), ("pip", "a"), ("pip", "b")]


# --- manifests ------------------------------------------------------------------------------------


def test_requirements_txt() -> None:
    text = "# comment\nrequests>=2.31  # http\nPyYAML==6.0\n-r base.txt\n-e .\nnumpy; python_version>'3.8'\n\n"

    result = _extract(TextSource("scripts/requirements.txt", text, None))

    assert [(d.ecosystem, d.name, d.source) for d in result.dependencies] == [
        ("pip", "numpy", "scripts/requirements.txt"),
        ("pip", "pyyaml", "scripts/requirements.txt"),
        ("pip", "requests", "scripts/requirements.txt"),
    ]


def test_requirements_variants_by_name() -> None:
    assert _deps(TextSource("requirements-dev.txt", "pytest\n", None)) == [("pip", "pytest")]
    assert _deps(TextSource("requirements/base.txt", "django\n", None)) == [("pip", "django")]


def test_pyproject_toml() -> None:
    text = (
        '[project]\nname = "x"\ndependencies = ["httpx>=0.27", "Rich"]\n'
        '[project.optional-dependencies]\ndev = ["pytest"]\n'
        '[tool.poetry.dependencies]\npython = "^3.11"\nclick = "^8"\n'
    )

    assert _deps(TextSource("pyproject.toml", text, "toml")) == [
        ("pip", "click"), ("pip", "httpx"), ("pip", "pytest"), ("pip", "rich")]  # fmt: skip


def test_package_json() -> None:
    text = json.dumps({"dependencies": {"zod": "^3", "@scope/pkg": "1"}, "devDependencies": {"Vitest": "1"}})

    assert _deps(TextSource("package.json", text, "json")) == [
        ("npm", "@scope/pkg"), ("npm", "vitest"), ("npm", "zod")]  # fmt: skip


def test_cargo_toml_go_mod_gemfile_environment_yml() -> None:
    cargo = TextSource("Cargo.toml", '[dependencies]\nserde = "1"\nfoo = { package = "real-foo" }\n', None)
    go_mod_text = "module x\n\ngo 1.22\n\nrequire github.com/a/b v1.2.3\nrequire (\n\tgolang.org/x/net v0.1.0\n)\n"
    go_mod = TextSource("go.mod", go_mod_text, None)
    gemfile = TextSource("Gemfile", "source 'https://rubygems.org'\ngem 'rails', '~> 7'\n", None)
    environment = TextSource(
        "environment.yml", "dependencies:\n  - python=3.11\n  - conda-forge::rdkit\n  - pip:\n    - ase\n", None
    )

    assert _deps(cargo, go_mod, gemfile, environment) == [
        ("cargo", "real-foo"), ("cargo", "serde"), ("conda", "python"), ("conda", "rdkit"), ("gem", "rails"),
        ("go", "github.com/a/b"), ("go", "golang.org/x/net"), ("pip", "ase"),
    ]  # fmt: skip


def test_broken_manifests_are_ignored() -> None:
    broken = [
        TextSource("package.json", "{not json", None),
        TextSource("pyproject.toml", "[project\n", None),
        TextSource("Cargo.toml", "= =", None),
        TextSource("environment.yml", "dependencies: [", None),
        TextSource("package.json", "[1, 2]", None),
    ]

    assert _extract(*broken) == Requirements()


def test_dotenv_example_lists_env_vars() -> None:
    text = "# keys\nOPENAI_API_KEY=sk-...\nexport SLACK_TOKEN=\nHOME=/x\nlower_case=1\n"

    assert _env(TextSource(".env.example", text, None)) == ["OPENAI_API_KEY", "SLACK_TOKEN", "lower_case"]


# --- Python ---------------------------------------------------------------------------------------


def test_python_evidence_lines_when_found_out_of_text_order() -> None:
    # Imports are read before process calls, so `rich` (line 3) is found after `requests` (line 4).
    code = "import os\nsubprocess.run('pip install rich', shell=True)\nimport requests\n"

    result = _extract(_md(f"```python\n{code}```\n"))

    assert [(d.name, d.source) for d in result.dependencies] == [("requests", "SKILL.md:4"), ("rich", "SKILL.md:3")]


def test_python_imports_map_to_distributions() -> None:
    code = (
        "import os, sys\nimport cv2\nfrom PIL import Image\nimport yaml as y, numpy as np\n"
        "from sklearn.model_selection import train_test_split\nfrom . import sibling\nfrom .pkg import x\n"
        "import google.cloud.storage\nfrom google import genai\nimport fitz  # pymupdf\n"
        "from __future__ import annotations\nimport _private\n"
    )

    assert _deps(TextSource("scripts/tool.py", code, "python")) == [
        ("pip", "google-cloud-storage"), ("pip", "numpy"), ("pip", "opencv-python"), ("pip", "pillow"),
        ("pip", "pymupdf"), ("pip", "pyyaml"), ("pip", "scikit-learn"),
    ]  # fmt: skip


def test_python_local_modules_are_not_dependencies() -> None:
    main = TextSource("scripts/main.py", "import helpers_x\nfrom lib_y.core import z\nimport requests\n", "python")
    helper = TextSource("scripts/helpers_x.py", "", "python")
    package = TextSource("lib_y/__init__.py", "", "python")

    assert _deps(main, helper, package) == [("pip", "requests")]


def test_python_blocks_in_markdown_count_but_conventional_local_names_do_not() -> None:
    text = "```python\nimport pandas as pd\nfrom scripts.fetch import run\nimport json\n!pip install seaborn\n```\n"

    assert _deps(_md(text)) == [("pip", "pandas"), ("pip", "seaborn")]


def test_python_process_calls() -> None:
    code = (
        'subprocess.run(["git", "clone", url], check=True)\n'
        "subprocess.check_output(['ffprobe', '-v', 'quiet'])\n"
        'os.system("pdftotext in.pdf out.txt")\n'
        'shutil.which("soffice")\n'
        "asyncio.run(main())\n"
        "subprocess.run([sys.executable, '-m', 'pip'])\n"
        'print(["not", "a", "command"])\n'
    )

    result = _extract(TextSource("x.py", code, "python"))

    assert result.cli_tools == ["ffprobe", "git", "pdftotext", "soffice"]


def test_python_env_reads() -> None:
    code = (
        'key = os.environ["OPENAI_API_KEY"]\nos.environ.get("SLACK_TOKEN")\nos.getenv(\'DB_URL\', "x")\n'
        'os.environ.setdefault("MODE_X", "1")\nos.getenv("HOME")\n'
    )

    assert _env(TextSource("x.py", code, "python")) == ["DB_URL", "MODE_X", "OPENAI_API_KEY", "SLACK_TOKEN"]


def test_pep723_inline_script_metadata() -> None:
    code = '# /// script\n# requires-python = ">=3.11"\n# dependencies = [\n#   "httpx",\n#   "rich>=13",\n# ]\n# ///\n'

    result = _extract(TextSource("tool.py", code, "python"))

    assert [(d.name, d.source) for d in result.dependencies] == [("httpx", "tool.py:1"), ("rich", "tool.py:1")]


def test_jupyter_notebook_code_cells() -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["import nothing_here\n"]},
            {"cell_type": "code", "source": ["import pandas as pd\n", "!pip install seaborn\n"]},
        ]
    }

    assert _deps(TextSource("demo.ipynb", json.dumps(notebook), "jupyter")) == [("pip", "pandas"), ("pip", "seaborn")]


# --- JavaScript -----------------------------------------------------------------------------------


def test_javascript_imports_and_requires() -> None:
    code = (
        "import fs from 'fs';\nimport { z } from \"zod\";\nconst x = require('@scope/pkg/sub');\n"
        "import './styles.css';\nimport path from 'node:path';\nconst m = await import('lodash-es');\n"
        "export { a } from '../local.js';\nimport y from 'npm:chalk@5';\n"
    )

    assert _deps(TextSource("index.mjs", code, "javascript")) == [
        ("npm", "@scope/pkg"), ("npm", "chalk"), ("npm", "lodash-es"), ("npm", "zod")]  # fmt: skip


def test_javascript_env_and_processes() -> None:
    code = (
        "const k = process.env.OPENAI_API_KEY;\nconst t = process.env['GH_TOKEN'];\n"
        "Deno.env.get('DENO_KEY');\nexecSync('git status');\nspawn('ffmpeg', ['-i', f]);\n"
        "/x/.exec('notacommand');\nchild_process.exec('docker ps');\n"
    )

    result = _extract(TextSource("a.ts", code, "typescript"))

    assert result.env_vars == ["DENO_KEY", "GH_TOKEN", "OPENAI_API_KEY"]
    assert result.cli_tools == ["docker", "ffmpeg", "git"]


# --- environment variables ------------------------------------------------------------------------


def test_shell_variables_read_in_the_skill() -> None:
    code = (
        'curl -H "Authorization: Bearer $GITHUB_TOKEN" "${API_BASE_URL}/x"\n'
        "echo $HOME $PATH $1 $@ $? $file\nawk '{print $NF_FIELD}'\n"
    )

    assert _env(_bash(code)) == ["API_BASE_URL", "GITHUB_TOKEN"]


def test_local_assignments_are_not_env_but_exports_and_defaults_are() -> None:
    code = (
        'SCRIPT_DIR="$(dirname "$0")"\nsource "$SCRIPT_DIR/lib.sh"\nexport OPENAI_API_KEY="sk-..."\n'
        'TOKEN="${PIHOLE_TOKEN:-}"\nREGION=${REGION:-us-east-1}\nfor ITEM in a b; do echo $ITEM; done\n'
        'curl "$TOKEN" "$REGION"\ndeclare -x EXPORTED_X=1\nreadonly LOCAL_Y=2; echo $LOCAL_Y'
    )

    assert _env(_bash(code)) == ["EXPORTED_X", "OPENAI_API_KEY", "PIHOLE_TOKEN", "REGION"]


def test_heredoc_bodies_expand_unquoted_variables_only() -> None:
    code = "cat <<EOF\n$UNQUOTED_VAR\nEOF\ncat <<'EOF'\n$QUOTED_VAR\nEOF"

    assert _env(_bash(code)) == ["UNQUOTED_VAR"]


def test_prose_env_vars_in_backticks() -> None:
    text = (
        "Set `OPENAI_API_KEY` and `$SLACK_BOT` (or `AWS_REGION=us-east-1`). Call `MAX_RETRIES` times; "
        "the `CONSTANT_VALUE` and `README` are not env vars; neither is PLAIN_API_KEY without backticks."
    )

    assert _env(_md(text)) == ["AWS_REGION", "OPENAI_API_KEY", "SLACK_BOT"]


def test_inline_export_in_prose() -> None:
    assert _env(_md("Then run `export HF_TOKEN=hf_xxx` first.")) == ["HF_TOKEN"]


# --- ClawHub and frontmatter ----------------------------------------------------------------------


def test_clawhub_bins_are_programs_even_when_not_curated() -> None:
    clawhub = ClawHubMeta(key="openclaw", bins=["openhue", "/opt/bin/Tool"], any_bins=["python3", "python"])

    result = _extract(clawhub=clawhub)

    assert result.programs == ["openhue", "python", "python3", "tool"]
    assert result.cli_tools == ["openhue", "python", "python3", "tool"]


def test_clawhub_install_entries_become_dependencies() -> None:
    install = [
        {"kind": "brew", "formula": "steipete/tap/imsg"},
        {"kind": "node", "package": "twclaw"},
        {"kind": "go", "module": "github.com/steipete/eightctl/cmd/eightctl@latest"},
        {"kind": "uv", "package": "keep[local]"},
        {"kind": "pip", "package": "yt-dlp"},
        {"kind": "apt", "package": "playerctl"},
        {"brew": {"formula": "idb-companion", "tap": "facebook/fb"}},
        {"kind": "download", "url": "https://x"},
        {"kind": "node", "package": "."},
        {"kind": "brew"},
        {"id": "no-kind"},
    ]

    result = _extract(clawhub=ClawHubMeta(key="clawdbot", install=install))

    assert [(d.ecosystem, d.name, d.source) for d in result.dependencies] == [
        ("apt", "playerctl", "frontmatter:install"),
        ("brew", "idb-companion", "frontmatter:install"),
        ("brew", "steipete/tap/imsg", "frontmatter:install"),
        ("go", "github.com/steipete/eightctl/cmd/eightctl", "frontmatter:install"),
        ("npm", "twclaw", "frontmatter:install"),
        ("pip", "keep", "frontmatter:install"),
        ("pip", "yt-dlp", "frontmatter:install"),
    ]


def test_clawhub_env_and_primary_env() -> None:
    clawhub = ClawHubMeta(key="openclaw", env=["TMDB_API_KEY", "HOME"], primary_env="FULCRA_ACCESS_TOKEN")

    assert _extract(clawhub=clawhub).env_vars == ["FULCRA_ACCESS_TOKEN", "TMDB_API_KEY"]


def test_frontmatter_env_mapping() -> None:
    frontmatter = {"env": {"BOTTUBE_API_KEY": {"required": True}, "bad name": 1}}

    assert _extract(frontmatter=frontmatter).env_vars == ["BOTTUBE_API_KEY"]


# --- robustness -----------------------------------------------------------------------------------


def test_empty_input() -> None:
    assert _extract() == Requirements(programs=[], cli_tools=[], dependencies=[], env_vars=[])


def test_garbage_input_never_raises() -> None:
    sources: list[Any] = [
        TextSource("a.md", "```bash\n" + "$(" * 5000 + "\n```", "markdown"),
        TextSource("b.sh", "'" * 10001 + '"' * 10001 + "<<EOF\n" * 500, "shell"),
        TextSource("c.py", "import " + "a." * 10000 + "\nsubprocess.run([" + "'x'," * 1000, "python"),
        TextSource("d.js", "require(" * 3000 + "process.env[", "javascript"),
        TextSource("e.md", "`" * 10000 + "~~~" * 1000, "markdown"),
        TextSource("f", "\x00\x01\xff binary-ish", None),
        TextSource("g.md", None, "markdown"),  # type: ignore[arg-type]
        TextSource(None, "x", None),  # type: ignore[arg-type]
        ("too", "short"),
        None,
        42,
    ]

    result = extract_requirements(sources, {"allowed-tools": 3, "env": "x"}, None)

    assert isinstance(result, Requirements)
    assert extract_requirements([], None, None) == Requirements()  # type: ignore[arg-type]


def test_only_the_first_256_kb_of_a_text_is_scanned() -> None:
    filler = "x" * (MAX_SCAN_CHARS - 20)
    text = "```bash\ngit status\n```\n" + filler + "\n```bash\nterraform apply\n```\n"

    assert _extract(_md(text)).cli_tools == ["git"]


def test_result_is_json_serialisable_and_sorted() -> None:
    code = "zsh -c x\nawk 1\npip install b a\nexport Z_KEY=1 A_KEY=2"

    result = _extract(_bash(code))

    assert result.cli_tools == sorted(result.cli_tools)
    assert result.env_vars == ["A_KEY", "Z_KEY"]
    json.dumps(result.model_dump())


# --- real corpus files ----------------------------------------------------------------------------


def _corpus_requirements(folder: str) -> Requirements:
    root = OPENCLAW / folder
    if not root.is_dir():
        pytest.skip(f"development corpus folder {root} is not available")
    sources = [
        TextSource(path.relative_to(root).as_posix(), path.read_text(encoding="utf-8", errors="replace"), None)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    ]
    skill_md = next(s for s in sources if s.path.lower() in ("skill.md", "skills.md"))
    frontmatter = parse_frontmatter(skill_md.text).data
    return extract_requirements(sources, frontmatter, clawhub_meta(frontmatter))


def test_corpus_evilcalc_unclosed_crlf_block() -> None:
    result = _corpus_requirements("fobonacci404--evilcalc")

    assert result.programs == ["bc", "touch"]
    assert "calc_mul" not in result.cli_tools


def test_corpus_openhue_from_clawhub_metadata() -> None:
    result = _corpus_requirements("steipete--openhue")

    assert result.programs == ["openhue"]
    assert [(d.ecosystem, d.name) for d in result.dependencies] == [("brew", "openhue/cli/openhue-cli")]


def test_corpus_a_stock_analysis_base_dir_placeholder() -> None:
    result = _corpus_requirements("cnyezi--a-stock-analysis")

    assert result.cli_tools == ["uv"]


def test_corpus_ios_simulator() -> None:
    result = _corpus_requirements("tristanmanchester--ios-simulator")

    assert {"xcrun", "node", "idb"} <= set(result.programs)
    deps = [(d.ecosystem, d.name) for d in result.dependencies]
    assert ("brew", "idb-companion") in deps
    assert ("pip", "fb-idb") in deps
    assert "IOS_SIM_STATE_FILE" in result.env_vars


def test_corpus_pihole_env_vars() -> None:
    result = _corpus_requirements("baanish--pihole")

    assert {"PIHOLE_API_TOKEN", "PIHOLE_API_URL"} <= set(result.env_vars)
    assert result.programs == ["curl", "jq"]
