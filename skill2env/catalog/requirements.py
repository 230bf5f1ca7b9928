"""What a skill needs to run: programs, command-line tools, packages and environment variables.

Evidence comes from the skill's text files (`TextSource`): shell code (Markdown code fences,
`$ ` prompt lines, shell scripts, shebangs), install commands (`pip install`, `npm i -g`,
`brew install`, ...), package manifests, Python / JavaScript imports and process calls, and the
ClawHub `metadata.openclaw` block. Everything is heuristic and regex-driven: the catalog runs this on
tens of thousands of skills, so each text is scanned a bounded number of times, never parsed for real,
and nothing raises on bad input.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import yaml
from pydantic import BaseModel, Field

from skill2env.catalog.models import ClawHubMeta, Dependency

MAX_SCAN_CHARS = 256 * 1024
"""Only the head of each text is scanned, to bound the work on pathological files."""


class TextSource(NamedTuple):
    """One decoded text file of a skill."""

    path: str
    """Relative to the skill folder."""
    text: str
    language: str | None
    """`python`, `shell`, `markdown`, `javascript`, ... or None."""


class Requirements(BaseModel):
    """Requirements found in a skill, each list sorted and unique."""

    programs: list[str] = Field(default_factory=list)
    """Known external programs (a curated list, plus ClawHub `requires.bins` / `anyBins`)."""
    cli_tools: list[str] = Field(default_factory=list)
    """Every command name found in command position in shell code (a superset of `programs`)."""
    dependencies: list[Dependency] = Field(default_factory=list)
    """Sorted by (ecosystem, name); `source` is the first place the package was seen."""
    env_vars: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# Curated data
# --------------------------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


KNOWN_PROGRAMS = _words(
    """
    git gh glab hub svn hg git-lfs curl wget http https xh aria2c ssh scp sftp rsync nc netcat ncat nmap
    dig nslookup ping traceroute telnet ftp openssl gpg ssh-keygen ssh-add tailscale ngrok cloudflared
    websocat socat grpcurl
    jq yq gron jo mlr csvlook csvcut csvsql in2csv xmllint xmlstarlet sqlite3 psql pg_dump pg_restore
    mysql mysqldump redis-cli mongosh mongo duckdb clickhouse
    ffmpeg ffprobe ffplay convert magick identify mogrify composite montage gm sox lame flac exiftool
    mediainfo yt-dlp youtube-dl gifsicle optipng pngquant jpegoptim cwebp dwebp vips inkscape
    rsvg-convert potrace gimp blender whisper whisper-cli espeak espeak-ng mpv vlc
    pandoc pdftotext pdftoppm pdfinfo pdfimages pdfunite pdfseparate pdftohtml qpdf pdftk gs ghostscript
    mutool tesseract ocrmypdf libreoffice soffice unoconv wkhtmltopdf weasyprint latex pdflatex xelatex
    lualatex latexmk bibtex biber typst mmdc dot plantuml asciidoctor hugo jekyll mkdocs sphinx-build
    docker docker-compose podman kubectl helm k9s kind minikube terraform tofu pulumi ansible
    ansible-playbook vagrant packer aws gcloud gsutil bq az doctl flyctl fly heroku vercel netlify
    wrangler firebase supabase railway hcloud eksctl kustomize skaffold argocd vault nomad consul
    node npm npx pnpm pnpx yarn bun bunx deno tsc ts-node tsx python python3 python2 pip pip3 pipx uv
    uvx poetry pipenv conda mamba micromamba pytest ruff black mypy flake8 pylint isort jupyter ipython
    go gofmt cargo rustc rustup java javac mvn gradle kotlin kotlinc scala sbt ruby gem bundle bundler
    rake rails perl php composer dotnet swift swiftc xcodebuild xcrun xcode-select clang gcc g++ cc make
    cmake ninja meson bazel r rscript julia lua luarocks elixir mix erl ghc cabal stack zig nim dart
    flutter pod eslint prettier jest vitest playwright cypress lighthouse webpack vite esbuild rollup
    shellcheck shfmt hadolint semgrep trivy gitleaks trufflehog bandit pre-commit act nix nix-shell
    protoc buf
    sed awk gawk grep egrep rg ag fd find xargs sort uniq wc head tail cut tr tee cat ls cp mv rm mkdir
    rmdir touch chmod chown ln stat du df date sleep basename dirname realpath readlink mktemp diff patch
    cmp comm paste join split fold fmt nl od xxd hexdump base64 md5sum sha256sum sha1sum shasum file
    which whereis env timeout nohup watch ps kill pkill pgrep top htop lsof uname hostname whoami id
    sudo su install crontab bc dc expr seq yes tar gzip gunzip zcat bzip2 xz zstd unzip zip 7z 7za unrar less
    more tree column iconv envsubst parallel flock fzf bat eza exa entr watchexec direnv tmux screen vim
    nvim nano emacs code cursor open xdg-open pbcopy pbpaste xclip xsel wl-copy wl-paste
    osascript defaults launchctl plutil mdfind mdls screencapture sips shortcuts say afplay pmset
    networksetup scutil diskutil hdiutil security codesign spctl xattr caffeinate softwareupdate
    systemctl journalctl service apt apt-get dpkg snap flatpak brew port dnf yum rpm apk pacman zypper
    winget choco scoop powershell pwsh bash sh zsh fish dash ksh
    xdotool wmctrl xrandr scrot grim slurp ydotool adb fastboot idb ios-deploy lp lpr lpstat lpadmin
    nmcli ip ifconfig iptables ufw mount umount lsblk dd at
    chromium chromium-browser google-chrome google-chrome-stable firefox geckodriver chromedriver
    ollama llm aider claude codex gemini huggingface-cli hf
    """
)
"""Well-known external programs: a command named here goes into `programs` as well as `cli_tools`."""

SHELL_BUILTINS = _words(
    """
    : . [ [[ ]] alias bg bind break builtin caller case cd command compgen complete continue declare
    dirs disown echo enable esac eval exec exit export false fc fg fi for function getopts hash help
    history if in jobs let local logout mapfile popd printf pushd pwd read readarray readonly return
    select set shift shopt source suspend test then time times trap true type typeset ulimit umask
    unalias unset until wait while do done elif else coproc
    """
)
"""Shell builtins and keywords: never reported as tools."""

_KEYWORD_PREFIXES = frozenset(
    {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "time", "exec", "builtin"}
)
"""Words that may precede the real command in a pipeline segment."""

_WRAPPER_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "nohup": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-a", "-E", "-s", "--max-args", "--max-procs"}),
    "watch": frozenset({"-n", "--interval"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "caffeinate": frozenset({"-t", "-w"}),
    "unbuffer": frozenset(),
    "flock": frozenset({"-w", "-E"}),
    "chrt": frozenset(),
    "taskset": frozenset(),
}
"""Commands that run another command; their options taking a value are listed so it is skipped."""

_LOOKUP_COMMANDS = frozenset({"command", "which", "type", "hash", "whereis"})
"""Commands whose arguments name other commands (`command -v jq`)."""

_DECLARATION_COMMANDS = frozenset({"export", "declare", "typeset", "local", "readonly", "read", "for"})
"""Commands whose arguments name shell variables."""

_PREFIX_WORDS = _KEYWORD_PREFIXES | _WRAPPER_VALUE_OPTIONS.keys() | {"command"}
"""A segment starting with one of these (or with `VAR=value`) has its real command further on."""

_WRAPPERS_WITH_LEADING_ARG = frozenset({"timeout", "flock", "taskset", "chrt"})
"""Wrappers whose first non-option argument (duration, lock file, mask) precedes the command."""

UBIQUITOUS_ENV_VARS = _words(
    """
    HOME PATH PWD OLDPWD USER LOGNAME SHELL TMPDIR TMP TEMP LANG LANGUAGE TERM EDITOR VISUAL PAGER
    HOSTNAME HOST UID EUID PPID RANDOM SECONDS LINENO IFS PS1 PS2 PS4 OSTYPE MACHTYPE HOSTTYPE DISPLAY
    COLUMNS LINES OPTARG OPTIND OPTERR REPLY PIPESTATUS FUNCNAME SHLVL HISTFILE HISTSIZE MAIL
    BASHPID BASHOPTS DIRSTACK GROUPS TZ COLORTERM NO_COLOR FORCE_COLOR TERM_PROGRAM CI
    """
)
"""Set by every shell or OS; a skill reading them says nothing about what it needs."""
_UBIQUITOUS_ENV_PREFIXES = ("LC_", "XDG_", "BASH_", "ZSH_")

_ENV_SUFFIXES = _words(
    """
    KEY KEYS TOKEN TOKENS SECRET PASSWORD PASSWD PASS PAT URL URI ID HOST PORT USER USERNAME EMAIL
    REGION ENDPOINT DSN ACCOUNT PROJECT ORG DIR PATH HOME CREDENTIALS FILE BUCKET DOMAIN WEBHOOK SID
    PHONE MODEL SERVER
    """
)
"""Last `_` part of an ALL_CAPS name that makes prose like "set `FOO_API_KEY`" an env var."""

IMPORT_TO_DISTRIBUTION = {
    "cv2": "opencv-python", "PIL": "pillow", "yaml": "pyyaml", "sklearn": "scikit-learn",
    "skimage": "scikit-image", "bs4": "beautifulsoup4", "docx": "python-docx", "pptx": "python-pptx",
    "fitz": "pymupdf", "dateutil": "python-dateutil", "dotenv": "python-dotenv", "jwt": "pyjwt",
    "Crypto": "pycryptodome", "Cryptodome": "pycryptodomex", "OpenSSL": "pyopenssl",
    "magic": "python-magic", "serial": "pyserial", "usb": "pyusb", "git": "gitpython",
    "github": "pygithub", "telegram": "python-telegram-bot", "discord": "discord-py",
    "googleapiclient": "google-api-python-client", "Bio": "biopython", "attr": "attrs",
    "win32api": "pywin32", "win32com": "pywin32", "win32con": "pywin32", "websocket": "websocket-client",
    "socketio": "python-socketio", "engineio": "python-engineio", "zmq": "pyzmq",
    "MySQLdb": "mysqlclient", "faiss": "faiss-cpu", "speech_recognition": "speechrecognition",
    "igraph": "python-igraph", "jose": "python-jose", "multipart": "python-multipart",
    "slugify": "python-slugify", "nacl": "pynacl", "eth_account": "eth-account",
    "pkg_resources": "setuptools", "ruamel": "ruamel-yaml", "pdfminer": "pdfminer-six", "fpdf": "fpdf2",
    "umap": "umap-learn", "community": "python-louvain", "gi": "pygobject", "cairo": "pycairo",
    "wx": "wxpython", "Xlib": "python-xlib", "AppKit": "pyobjc", "Foundation": "pyobjc",
    "Quartz": "pyobjc", "objc": "pyobjc", "CoreFoundation": "pyobjc", "dns": "dnspython",
    "ldap": "python-ldap", "nmap": "python-nmap", "whois": "python-whois", "markdown_it": "markdown-it-py",
    "pydantic_settings": "pydantic-settings", "google_auth_oauthlib": "google-auth-oauthlib",
    "lxml": "lxml", "mpl_toolkits": "matplotlib", "tls_client": "tls-client", "docx2pdf": "docx2pdf",
    "pymupdf": "pymupdf", "psycopg2": "psycopg2", "tesserocr": "tesserocr", "Levenshtein": "levenshtein",
    "duckduckgo_search": "duckduckgo-search", "youtube_transcript_api": "youtube-transcript-api",
    "yt_dlp": "yt-dlp", "azure": "azure", "sentence_transformers": "sentence-transformers",
}  # fmt: skip
"""Import names whose PyPI distribution is named differently."""

_NAMESPACE_IMPORTS = {
    "google.cloud": None,  # google.cloud.<x> -> google-cloud-<x>
    "google.generativeai": "google-generativeai",
    "google.genai": "google-genai",
    "google.oauth2": "google-auth",
    "google.auth": "google-auth",
    "google.protobuf": "protobuf",
    "google.adk": "google-adk",
    "azure.identity": "azure-identity",
    "azure.storage.blob": "azure-storage-blob",
}
"""Namespace packages: the dotted prefix names the distribution (None: derive from the next part)."""

_PYTHON_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__", "__main__"}
_CONVENTIONAL_LOCAL_MODULES = _words(
    """
    scripts src app core utils util lib helpers helper config settings tests test examples example main
    models common module my_module mymodule your_module dags
    """
)
"""Import names that, in a skill's code snippets, almost always mean the skill's own code."""

NODE_BUILTINS = _words(
    """
    assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel
    dns domain events fs http http2 https inspector module net os path perf_hooks process punycode
    querystring readline repl stream string_decoder sys timers tls trace_events tty url util v8 vm wasi
    worker_threads zlib test sqlite
    """
)

_PLACEHOLDER_PACKAGES = frozenset(
    {"package", "packages", "package-name", "package_name", "pkg", "your-package", "name", "module", "foo"}
)

_NOT_COMMAND_SUFFIXES = (
    *(".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".ps1"),
    *(".txt", ".md", ".json", ".yaml", ".yml", ".csv", ".log", ".gz", ".tar", ".zip", ".html", ".xml"),
    *(".pdf", ".png", ".jpg", ".jpeg", ".svg", ".toml", ".lock", ".env", ".conf", ".cfg", ".ini"),
)
"""A word ending like this is a script of the skill or a data file, not an installed tool."""

_SHELL_FENCES = frozenset({"bash", "sh", "shell", "zsh", "ksh", "fish", "shellscript", "bash-session"})
_CONSOLE_FENCES = frozenset({"console", "shell-session", "shellsession", "terminal", "sh-session", "cli", "cmd"})
_PYTHON_FENCES = frozenset({"python", "py", "python3", "ipython", "pycon", "jupyter"})
_JS_FENCES = frozenset({"javascript", "js", "jsx", "mjs", "cjs", "typescript", "ts", "tsx", "node", "nodejs", "deno"})
_PLAIN_FENCES = frozenset({"", "text", "txt", "plaintext", "plain", "none", "output", "sh-output"})
_DOCKER_FENCES = frozenset({"dockerfile", "docker", "containerfile"})

_LANGUAGE_ALIASES = {
    "bash": "shell", "sh": "shell", "zsh": "shell", "fish": "shell",
    "typescript": "javascript", "ts": "javascript", "js": "javascript", "node": "javascript",
    "py": "python", "md": "markdown", "mdx": "markdown",
}  # fmt: skip
_LANGUAGE_BY_SUFFIX = {
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown", ".sh": "shell", ".bash": "shell",
    ".zsh": "shell", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "javascript", ".tsx": "javascript", ".ipynb": "jupyter",
}  # fmt: skip

# --------------------------------------------------------------------------------------------------
# Regexes (compiled once)
# --------------------------------------------------------------------------------------------------

# A run of 3+ backticks (tildes) and the rest of its line. The pattern starts with a literal so the
# engine skips ahead fast; the lookbehind drops runs that follow other text on their line (a run after
# a space or tab is checked in Python: only blanks may precede a fence).
_FENCE_RES = (
    ("```", re.compile(r"(```(?<![^\n \t]```)`*)([^\n]*)")),
    ("~~~", re.compile(r"(~~~(?<![^\n \t]~~~)~*)([^\n]*)")),
)
_INLINE_CODE_RE = re.compile(r"`(?:[^`\n $A-Z][^`\n ]{0,299}+`|([^`\n]{1,300}+)`)")
"""An inline code span. The group is empty for spans that can be neither a variable nor a command
(no space, not starting with `$` or a capital): matched, so that backticks pair up as before, but not
captured, so that they are skipped cheaply."""
_INLINE_COMMAND_WORDS = KNOWN_PROGRAMS | {"export", "sudo"}
"""An inline code span starting with one of these (and holding a space) is read as a command."""
_HEREDOC_RE = re.compile(
    r"<<-?[ \t]*(?P<quote>['\"]?)(?P<tag>[A-Za-z_][\w-]*)(?P=quote)[^\n]*\n(?P<body>[^\x00]*?)^[ \t]*(?P=tag)[ \t]*$",
    re.MULTILINE,
)
# Every alternative starts with a literal so the regex engine can skip ahead (a big speed-up); the
# double-quote branch is "unrolled" and possessive, so an unclosed quote fails in one linear pass; the
# comment branch checks, after the `#`, that it begins a word.
_QUOTE_OR_COMMENT_RE = re.compile(r"'[^'\x00]*+'|\"[^\"\\\x00]*+(?:\\[^\x00][^\"\\\x00]*+)*+\"|#(?<![^\s;&|(]#)[^\n]*+")
_SHELL_VAR_RE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_DEFAULT_READ_RE = re.compile(r"=[\"']?\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_CASE_PATTERN_RE = re.compile(r"\n[ \t]*\(?[^\s()]+\)")
_FUNCTION_KEYWORD_RE = re.compile(r"function[ \t]+([\w.:-]+)")
_FUNCTION_PARENS_RE = re.compile(r"\n[ \t]*([\w.:-]+)[ \t]*\([ \t]*\)")
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ASSIGNMENT_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=(.*)$", re.DOTALL)
_COMMAND_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}$")
_INSTALL_PATTERN = (
    r"(?:sudo[ \t]+)?(?:"
    r"(?:pip3?|pip3\.\d+|python3?(?:\.\d+)?[ \t]+-m[ \t]+pip|uv[ \t]+pip|pipx|gem|brew|apt-get|apt|dnf|yum|"
    r"npm|pnpm|bun|cargo|go|conda|mamba|micromamba)[ \t]+(?:install|i|add|get)\b|"
    r"(?:uv|yarn|pnpm)[ \t]+add\b|npx[ \t]|uvx[ \t]|composer[ \t]+require\b|dotnet[ \t]+add\b|apk[ \t]+add\b)"
)
# Line-start patterns begin with a literal "\n" (and are run on "\n" + text): `^` in MULTILINE mode
# makes the engine try every position, which is many times slower.
_PROMPT_LINE_RE = re.compile(r"\n[ \t]*\$[ \t]+(?P<command>[^\n]+)")
# The lookahead names the first letters of `$` and of every install command: most lines of a plain
# block (trees, output) fail on it at once instead of trying each install command in turn.
_PROMPT_OR_INSTALL_LINE_RE = re.compile(
    r"\n[ \t]*(?=[$spugbadynmc])(?:\$[ \t]+(?P<command>[^\n]+)|(?P<install>" + _INSTALL_PATTERN + r"[^\n]*))"
)
_VIEW_BARRIER = "\x00"
"""Put between code blocks scanned together: quote, heredoc and segment patterns stop at it."""
_PROMPT_PREFIX_RE = re.compile(r"\n[ \t]*\$[ \t]+")
_SEGMENT_RE = re.compile(r"[^|;&(){}`\n\x00]+")
_NON_NEWLINE_RE = re.compile(r"[^\n]+")
_COMMAND_SUBSTITUTION_RE = re.compile(r"\$\([^()]*\)")
_SHELL_EXPANSION_RE = re.compile(r"\$\{[^}\n]*\}|\$\(\([^)\n]*\)\)|\(\([^)\n]*\)\)|=\([^)\x00]*\)")
_PLACEHOLDER_RE = re.compile(r"\{(?<!\$\{)[\w.-]*\}")
"""`{baseDir}`-style template placeholders and xargs' `{}` (not `${VAR}`)."""
_DOCKER_RUN_RE = re.compile(r"\n[ \t]*RUN[ \t]+(?P<command>(?:[^\n]*\\\n)*[^\n]*)", re.IGNORECASE)
_BLOCK_VIEWS: dict[str, tuple[str, re.Pattern[str] | None]] = {
    **dict.fromkeys(_PLAIN_FENCES, ("shell", _PROMPT_OR_INSTALL_LINE_RE)),
    **dict.fromkeys(_DOCKER_FENCES, ("shell", _DOCKER_RUN_RE)),
    **dict.fromkeys(_JS_FENCES, ("javascript", None)),
    **dict.fromkeys(_PYTHON_FENCES, ("python", None)),
    **dict.fromkeys(_CONSOLE_FENCES, ("shell", _PROMPT_LINE_RE)),
    **dict.fromkeys(_SHELL_FENCES, ("shell", None)),
}
"""Fence language -> (scanner kind, the regex picking the lines to scan or None for all lines).
Built lowest priority first, should a language ever be in two of the sets."""
_SHEBANG_RE = re.compile(r"^#![ \t]*(\S+)[ \t]*(.*)$")

_PY_IMPORT_RE = re.compile(
    r"\n[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?"
    r"(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))"
)
_PY_ENVIRON_RE = re.compile(r"environ(?:\.get\(|\.setdefault\(|\.pop\(|\[)\s*[rbu]?['\"]([A-Za-z_]\w*)['\"]")
_PY_GETENV_RE = re.compile(r"getenv\(\s*[rbu]?['\"]([A-Za-z_]\w*)['\"]")
_PY_ARGV_LIST_RE = re.compile(r"\(\s*\[\s*(['\"][^\]]{0,500})\]")
_PY_PROCESS_FUNCTIONS = ("run", "call", "check_call", "check_output", "Popen", "create_subprocess_exec", "spawn")
_PY_SHELL_STRING_RES = (
    re.compile(
        r"subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)"
        r"\(\s*[rfbu]?(['\"])([^'\"\n]{1,500})\1"
    ),
    re.compile(r"os\.(?:system|popen)\(\s*[rfbu]?(['\"])([^'\"\n]{1,500})\1"),
    re.compile(r"create_subprocess_shell\(\s*[rfbu]?(['\"])([^'\"\n]{1,500})\1"),
)
_PY_EXEC_ARGS_RE = re.compile(r"create_subprocess_exec\(\s*['\"]([^'\"\n]{1,200})['\"]")
_PY_WHICH_RE = re.compile(r"which\(\s*['\"]([A-Za-z0-9_.+-]{1,64})['\"]")
_PY_NOTEBOOK_SHELL_RE = re.compile(r"\n[ \t]*[!%]((?:pip3?|uv|conda|apt-get|apt|npm|brew)\b[^\n]*)")
_STRING_LITERAL_RE = re.compile(r"['\"]([^'\"\n]*)['\"]")
_PEP723_RE = re.compile(r"# /// script[ \t]*\n((?:#[^\n]*\n)*?)# ///[ \t]*(?:\n|$)")

_JS_IMPORT_RES = (
    re.compile(r"require\s*\(\s*(['\"])([^'\"\n]{1,200})\1"),
    re.compile(r"import\s*\(?\s*(['\"])([^'\"\n]{1,200})\1"),
    re.compile(r"from\s+(['\"])([^'\"\n]{1,200})\1"),
)
_JS_ENV_RES = (
    re.compile(r"process\.env(?:\.([A-Za-z_]\w*)|\[\s*['\"]([A-Za-z_]\w*)['\"]\s*\])"),
    re.compile(r"Bun\.env(?:\.([A-Za-z_]\w*)|\[\s*['\"]([A-Za-z_]\w*)['\"]\s*\])"),
    re.compile(r"import\.meta\.env(?:\.([A-Za-z_]\w*)|\[\s*['\"]([A-Za-z_]\w*)['\"]\s*\])"),
    re.compile(r"Deno\.env\.get\(\s*['\"]([A-Za-z_]\w*)['\"]()"),
)
_JS_EXEC_RES = (
    re.compile(r"(exec(?:Sync|a|aSync|File|FileSync)?)\(\s*([`'\"])([^'\"`\n]{1,300})\2"),
    re.compile(r"(spawn(?:Sync)?)\(\s*([`'\"])([^'\"`\n]{1,300})\2"),
)
_JS_PROCESS_MODULES = ("child_process.", "cp.", "childProcess.")
_JS_TEMPLATE_SHELL_RE = re.compile(r"(?<![\w$])\$`([^`\n]{1,300})`")

_PROSE_ENV_RE = re.compile(r"^\$?\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\}?(=.*)?$")
_DOTENV_LINE_RE = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=", re.MULTILINE)
_ALLOWED_TOOLS_BASH_RE = re.compile(r"\bBash\(\s*([^\s:)*]+)")
_GO_MOD_REQUIRE_RE = re.compile(r"^(?:require[ \t]+)?[ \t]*([\w.-]+\.[\w.-]+/[^\s]+)[ \t]+v\d\S*", re.MULTILINE)
_GEMFILE_RE = re.compile(r"^[ \t]*gem[ \t]+['\"]([\w.-]+)['\"]", re.MULTILINE)
_REQUIREMENTS_NAME_RE = re.compile(r"^requirements[\w.-]*\.(?:txt|in)$", re.IGNORECASE)

_PIP_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")
_PIP_NORMALISE_RE = re.compile(r"[-_.]+")
_NPM_NAME_RE = re.compile(r"^(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", re.IGNORECASE)
_SIMPLE_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*")
_BREW_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9@._+-]*(?:/[A-Za-z0-9][A-Za-z0-9@._+-]*){0,2}$")
_COMPOSER_NAME_RE = re.compile(r"^[a-z0-9][\w.-]*/[a-z0-9][\w.-]*", re.IGNORECASE)
_GO_MODULE_RE = re.compile(r"^[\w.-]+\.[\w.-]+(?:/[\w.~+-]+)*$")


def _ascii_translation(to_space: str) -> str:
    """A `str.translate` table turning the characters of `to_space` into spaces.

    A string table is several times faster than a dict one; characters past its end stay as they are.
    """
    return "".join(" " if chr(code) in to_space else chr(code) for code in range(128))


_OPERATOR_TO_SPACE = _ascii_translation("|;&()`")
"""For double-quoted text; `{` and `}` stay so that `"${VAR}"` is still seen as a variable."""
_OPERATOR_AND_DOLLAR_TO_SPACE = _ascii_translation("|;&(){}`$")

# --------------------------------------------------------------------------------------------------
# Collection state
# --------------------------------------------------------------------------------------------------


@dataclass
class _Collector:
    """Accumulates everything found across all sources of one skill."""

    cli_tools: set[str] = field(default_factory=set)
    declared_programs: set[str] = field(default_factory=set)
    """ClawHub `requires.bins` / `anyBins`: programs whether or not they are in KNOWN_PROGRAMS."""
    env_vars: set[str] = field(default_factory=set)
    dependencies: dict[tuple[str, str], str] = field(default_factory=dict)

    def add_dependency(self, ecosystem: str, name: str, where: _Where, offset: int = 0) -> None:
        key = (ecosystem, name)
        if key not in self.dependencies:
            self.dependencies[key] = where.describe(offset)

    def add_env(self, name: str) -> None:
        if _is_interesting_env(name):
            self.env_vars.add(name)


@dataclass
class _Where:
    """A source file, for turning a character offset into a `path:line` evidence string."""

    path: str
    text: str | None = None
    _counted_to: int = field(default=0, repr=False, compare=False)
    _newlines: int = field(default=0, repr=False, compare=False)
    """Newlines in `text` before `_counted_to`."""

    def describe(self, offset: int) -> str:
        if self.text is None:
            return self.path
        return f"{self.path}:{self._line_at(self.text, offset)}"

    def _line_at(self, text: str, offset: int) -> int:
        """1-based line of `offset`. Evidence mostly comes in text order: count on from the last one."""
        if offset < 0:
            return text.count("\n", 0, offset) + 1
        if offset < self._counted_to:
            self._counted_to = self._newlines = 0
        self._newlines += text.count("\n", self._counted_to, offset)
        self._counted_to = offset
        return self._newlines + 1


@dataclass
class _ShellVars:
    """Per-source shell variable bookkeeping: references minus local assignments, plus exports."""

    referenced: set[str] = field(default_factory=set)
    assigned: set[str] = field(default_factory=set)
    exported: set[str] = field(default_factory=set)
    defaulted: set[str] = field(default_factory=set)
    """`X=${X:-default}`: assigned, but from the environment."""

    def env_names(self) -> set[str]:
        return (self.referenced - self.assigned) | self.exported | self.defaulted


@dataclass
class _ScanContext:
    """What a scanner of one source needs: where to put facts, where to point evidence, shell state."""

    collector: _Collector
    where: _Where
    local_names: set[str]
    variables: _ShellVars = field(default_factory=_ShellVars)
    functions: set[str] = field(default_factory=set)

    def at(self, where: _Where) -> _ScanContext:
        """The same context (shared variables and functions) reporting evidence against `where`."""
        return _ScanContext(self.collector, where, self.local_names, self.variables, self.functions)


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


def extract_requirements(
    sources: Sequence[TextSource], frontmatter: dict[str, Any], clawhub: ClawHubMeta | None
) -> Requirements:
    """Collect the programs, CLI tools, packages and env vars a skill needs. Never raises."""
    collector = _Collector()
    valid = [s for s in sources or () if isinstance(s, tuple) and len(s) == 3 and isinstance(s[0], str)]
    local_names = _local_module_names(source.path for source in valid)
    for source in valid:
        try:
            _scan_source(source, collector, local_names)
        except Exception:  # noqa: S112 - best effort: one odd file must not lose the others' facts
            continue
    try:
        if isinstance(frontmatter, dict):
            _scan_frontmatter(frontmatter, collector)
        if isinstance(clawhub, ClawHubMeta):
            _scan_clawhub(clawhub, collector)
    except Exception:  # noqa: S110 - same: keep what the files gave
        pass
    return _finish(collector)


def _finish(collector: _Collector) -> Requirements:
    cli_tools = collector.cli_tools | collector.declared_programs
    programs = {tool for tool in cli_tools if tool in KNOWN_PROGRAMS} | collector.declared_programs
    dependencies = [
        Dependency(ecosystem=ecosystem, name=name, source=source)
        for (ecosystem, name), source in sorted(collector.dependencies.items())
    ]
    return Requirements(
        programs=sorted(programs),
        cli_tools=sorted(cli_tools),
        dependencies=dependencies,
        env_vars=sorted(collector.env_vars),
    )


def _local_module_names(paths: Iterable[str]) -> set[str]:
    """Names a Python import could resolve to inside the skill itself (files and folders)."""
    names: set[str] = set()
    for path in paths:
        parts = path.split("/")
        names.update(parts[:-1])
        if parts[-1].endswith(".py"):
            names.add(parts[-1][:-3])
    return names


# --------------------------------------------------------------------------------------------------
# Source dispatch
# --------------------------------------------------------------------------------------------------


def _scan_source(source: TextSource, collector: _Collector, local_names: set[str]) -> None:
    text = source.text[:MAX_SCAN_CHARS] if isinstance(source.text, str) else ""
    if not text:
        return
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    path = source.path
    basename = path.rsplit("/", 1)[-1]
    if _scan_manifest(basename, path, text, collector):
        return
    language = _source_language(source.language, basename, text)
    where = _Where(path, text)
    if text.startswith("#!"):
        _scan_shebang(text, collector)
    if language == "markdown":
        _scan_markdown(text, where, collector, local_names)
    elif language == "shell":
        context = _ScanContext(collector, where, local_names)
        _scan_shell(text, 0, context)
        _flush_shell_vars(context)
    elif language == "python":
        _scan_python(text, 0, _ScanContext(collector, where, local_names))
    elif language == "javascript":
        _scan_javascript(text, 0, _ScanContext(collector, where, local_names))
    elif language == "dockerfile":
        _scan_dockerfile(text, _ScanContext(collector, where, local_names))
    elif language == "jupyter":
        _scan_notebook(text, path, collector, local_names)


def _source_language(language: str | None, basename: str, text: str) -> str | None:
    if language:
        lowered = language.lower()
        return _LANGUAGE_ALIASES.get(lowered, lowered)
    lowered_name = basename.lower()
    if lowered_name in ("dockerfile", "containerfile") or lowered_name.endswith(".dockerfile"):
        return "dockerfile"
    _, dot, extension = lowered_name.rpartition(".")
    if dot and f".{extension}" in _LANGUAGE_BY_SUFFIX:
        return _LANGUAGE_BY_SUFFIX[f".{extension}"]
    if text.startswith("#!"):
        return _shebang_language(text)
    return None


def _shebang_language(text: str) -> str | None:
    interpreter = _shebang_interpreter(text)
    if interpreter is None:
        return None
    if interpreter in ("bash", "sh", "zsh", "dash", "ksh"):
        return "shell"
    if interpreter.startswith("python"):
        return "python"
    if interpreter in ("node", "deno", "bun", "tsx", "ts-node"):
        return "javascript"
    return None


def _shebang_interpreter(text: str) -> str | None:
    first_line_end = text.find("\n")
    match = _SHEBANG_RE.match(text if first_line_end < 0 else text[:first_line_end])
    if match is None:
        return None
    program = match.group(1).rsplit("/", 1)[-1]
    if program == "env":
        # `#!/usr/bin/env -S uv run --script`: the first word that is not an option or assignment.
        program = next((w for w in match.group(2).split() if not w.startswith("-") and "=" not in w), "")
    return _command_name(program)


def _scan_shebang(text: str, collector: _Collector) -> None:
    interpreter = _shebang_interpreter(text)
    if interpreter is not None:
        collector.cli_tools.add(interpreter)


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------


def _scan_markdown(text: str, where: _Where, collector: _Collector, local_names: set[str]) -> None:
    """Scan a Markdown file: its code blocks by language, then the inline code of its prose.

    The blocks of one language are scanned together as one "view" of the file: the block code in
    place, everything else reduced to its newlines (so a line number in the view is the line in the
    file), and a barrier character between blocks that quotes and heredocs never cross. One scan per
    language instead of one per block keeps the per-block overhead low.
    """
    context = _ScanContext(collector, where, local_names)
    view_parts: dict[str, list[str]] = {}
    view_ends: dict[str, int] = {}
    prose_parts: list[str] = []
    prose_start = 0
    for info, fence_start, code_start, code_end, block_end in _fenced_blocks(text):
        # The opening fence line is prose too, but only a backtick in its info string can start
        # inline code there: leave it out otherwise (fewer backticks for the inline code scan).
        prose_parts.append(text[prose_start : code_start if "`" in info else fence_start])
        prose_start = block_end
        scanned_as = _fence_view(info)
        if scanned_as is None:
            continue
        kind, line_re = scanned_as
        parts = view_parts.setdefault(kind, [])  # views are scanned in order of first block
        code = _block_code(line_re, text[code_start:code_end])
        if code is None:
            continue  # nothing to scan; its newlines go into the padding before the next block
        gap_newlines = text.count("\n", view_ends.get(kind, 0), code_start)
        parts.append(_VIEW_BARRIER + "\n" * gap_newlines)
        parts.append(code)
        view_ends[kind] = code_end
    for kind, parts in view_parts.items():
        if parts:
            view = "".join(parts)
            _VIEW_SCANNERS[kind](view, 0, context.at(_Where(where.path, view)))
    prose_parts.append(text[prose_start:])
    _scan_inline_code("".join(prose_parts), context)
    _flush_shell_vars(context)


def _fence_lines(text: str) -> list[tuple[int, int, str, str]]:
    """(line start, line end, fence run, info string) of every line that starts a code fence."""
    found: list[tuple[int, int, str, str]] = []
    markers = 0
    for marker, fence_re in _FENCE_RES:
        if marker[0] not in text or marker not in text:  # one character is found many times faster
            continue
        markers += 1
        for match in fence_re.finditer(text):
            line_start, line_end = match.span()
            if line_start and text[line_start - 1] != "\n":  # indented: only blanks may come first
                run_start, line_start = line_start, text.rfind("\n", 0, line_start) + 1
                if text[line_start:run_start].strip(" \t"):
                    continue
            run, info = match.groups()
            found.append((line_start, line_end, run, info))
    if markers > 1:
        found.sort()
    return found


def _fenced_blocks(text: str) -> list[tuple[str, int, int, int, int]]:
    """(info string, opening fence line start, code start, code end, block end) of each fenced block.

    As in CommonMark, a fence that is never closed runs to the end of the text.
    """
    blocks: list[tuple[str, int, int, int, int]] = []
    opening_run = opening_info = ""
    fence_start = code_start = 0
    for line_start, line_end, run, info in _fence_lines(text):
        if not opening_run:
            opening_run, opening_info, fence_start, code_start = run, info, line_start, line_end + 1
        elif run[0] == opening_run[0] and len(run) >= len(opening_run) and not info.strip(" \t`~"):
            blocks.append((opening_info, fence_start, min(code_start, line_start), line_start, line_end))
            opening_run = ""
    if opening_run:
        end = len(text)
        blocks.append((opening_info, fence_start, min(code_start, end), end, end))
    return blocks


def _fence_language(info: str) -> str:
    words = info.strip().split(None, 1)
    if not words:
        return ""
    return words[0].strip("{}.").split(",", 1)[0].lower()


@functools.lru_cache(maxsize=1024)
def _fence_view(info: str) -> tuple[str, re.Pattern[str] | None] | None:
    """(scanner kind, line picker) for a fence's info string; None when the block is not scanned."""
    return _BLOCK_VIEWS.get(_fence_language(info))


def _block_code(line_re: re.Pattern[str] | None, code: str) -> str | None:
    """The code of a block to scan, with the block's newline count: all of it or the lines `line_re`
    picks. None when a block reduced to picked lines has none (its scan would find nothing)."""
    if line_re is None:
        return code
    selected = _selected_lines(line_re, code)
    if selected is None and line_re is _PROMPT_LINE_RE:
        return code  # a console block without `$ ` prompts: all of it is commands
    return selected


def _selected_lines(line_re: re.Pattern[str], code: str) -> str | None:
    """Only the lines `line_re` picks (`$ ` prompts, installs, RUN), the others reduced to newlines;
    None when it picks none."""
    parts: list[str] = []
    last = 0
    for match in line_re.finditer("\n" + code):
        group = match.lastgroup or 1
        start, end = match.start(group) - 1, match.end(group) - 1
        parts.append("\n" * code.count("\n", last, start))
        parts.append(match.group(group))
        last = end
    if not parts:
        return None
    parts.append("\n" * code.count("\n", last))
    return "".join(parts)


def _scan_inline_code(prose: str, context: _ScanContext) -> None:
    """Inline `code` spans: env var names, and commands that are clearly commands."""
    if "`" not in prose:
        return
    # The prose was joined from pieces, so its offsets are not the file's: evidence names the file only.
    prose_context: _ScanContext | None = None
    for span in _INLINE_CODE_RE.findall(prose):
        if not span:
            continue
        first = span[0]
        if first == "$" or "A" <= first <= "Z":
            env_match = _PROSE_ENV_RE.match(span)
            if env_match is not None:
                name = env_match.group(1)
                if first == "$" or env_match.group(2) is not None or _has_env_suffix(name):
                    context.collector.add_env(name)
                continue
        if " " not in span:
            continue
        words = span.split(None, 1)
        if words and words[0] in _INLINE_COMMAND_WORDS:
            prose_context = prose_context or context.at(_Where(context.where.path))
            _scan_shell(span, 0, prose_context)
        elif "$" in span:
            _collect_shell_vars(span, context.variables)


def _has_env_suffix(name: str) -> bool:
    return name.rsplit("_", 1)[-1] in _ENV_SUFFIXES


# --------------------------------------------------------------------------------------------------
# Shell
# --------------------------------------------------------------------------------------------------


def _scan_shell(code: str, offset: int, context: _ScanContext) -> None:
    """Scan shell code starting at character `offset` of the source: commands, installs, variables.

    Every rewrite below keeps the text's length, so a segment's position in the rewritten code is
    still its position in the source (for `path:line` evidence). Each rewrite runs only when the
    code holds what it rewrites; one character is tested before two, as it is found much faster.
    """
    if "<" in code and "<<" in code:
        code = _HEREDOC_RE.sub(lambda m: _blank_heredoc(m, context.variables), code)
    if "{" in code:
        code = _PLACEHOLDER_RE.sub(_neutralise_placeholder, code)
    if "'" in code or '"' in code or "#" in code:
        code = _QUOTE_OR_COMMENT_RE.sub(_neutralise_quote_or_comment, code)
    if "$" in code:
        _collect_shell_vars(code, context.variables)
        if "$ " in code or "$\t" in code:
            code = _PROMPT_PREFIX_RE.sub(_same_length_blank, "\n" + code)[1:]
    has_paren = "(" in code
    if ("$" in code and "${" in code) or (has_paren and ("((" in code or "=(" in code)):
        code = _SHELL_EXPANSION_RE.sub(_neutralise_expansion, code)
    if (has_paren and "()" in code) or "function" in code:
        context.functions.update(_FUNCTION_KEYWORD_RE.findall(code))
        context.functions.update(_FUNCTION_PARENS_RE.findall("\n" + code))
    if "esac" in code:
        code = _CASE_PATTERN_RE.sub(_same_length_blank, "\n" + code)[1:]
    if "\\" in code and "\\\n" in code:
        code = code.replace("\\\n", "  ")  # line continuation: one command over two lines
    for segment in _SEGMENT_RE.finditer(code):
        text = segment[0]
        words = text.split(None, 1)
        if not words:
            continue
        start = segment.start()
        if start and code[start - 1] in ")}":
            continue  # after `$(...)` or `{...}` come more arguments of the outer command
        _analyse_segment(words[0], text, offset + start, context)


def _same_length_blank(match: re.Match[str]) -> str:
    """Blank out a match but keep its newlines, so later offsets do not move."""
    text = match.group(0)
    return "\n" + " " * (len(text) - 1) if text.startswith("\n") else " " * len(text)


def _neutralise_expansion(match: re.Match[str]) -> str:
    """`${...}`, `$((...))` and `=(...)` hold no commands: keep an inert word of the same length.

    Newlines are kept too (arrays can span lines).
    """
    text = match.group(0)
    return ("=X" if text[0] == "=" else "$V") + _blank_keeping_newlines(text[2:])


def _neutralise_placeholder(match: re.Match[str]) -> str:
    # `<` makes the word neither a command nor a package name, and is not a command separator.
    return "<" + "_" * (len(match.group(0)) - 2) + ">"


def _blank_heredoc(match: re.Match[str], variables: _ShellVars) -> str:
    """Blank a heredoc body and end tag (data, not commands), keeping the length; note its vars."""
    if not match.group("quote"):
        _collect_shell_vars(match.group("body"), variables)
    body_start = match.start("body") - match.start(0)
    text = match.group(0)
    return text[:body_start] + _blank_keeping_newlines(text[body_start:])


def _blank_keeping_newlines(text: str) -> str:
    if "\n" not in text:
        return " " * len(text)
    return _NON_NEWLINE_RE.sub(_same_length_blank, text)


def _neutralise_quote_or_comment(match: re.Match[str]) -> str:
    """Make quoted text inert for command splitting while keeping its words and its length."""
    text = match[0]
    first = text[0]
    if first == "#":
        return " " * len(text)
    if first == "'":
        return text.translate(_OPERATOR_AND_DOLLAR_TO_SPACE)
    neutral = text.translate(_OPERATOR_TO_SPACE)
    if "$(" not in text:
        return neutral
    # Only the command substitutions inside "..." hold commands; keep those as written.
    for substitution in _COMMAND_SUBSTITUTION_RE.finditer(text):
        neutral = neutral[: substitution.start()] + substitution.group() + neutral[substitution.end() :]
    return neutral


def _collect_shell_vars(code: str, variables: _ShellVars) -> None:
    if "$" not in code:
        return
    variables.referenced.update(_SHELL_VAR_RE.findall(code))
    if "=" in code:
        for match in _DEFAULT_READ_RE.finditer(code):
            name = match.group(1)
            if code[max(0, match.start() - len(name)) : match.start()] == name:
                variables.defaulted.add(name)


def _flush_shell_vars(context: _ScanContext) -> None:
    for name in context.variables.env_names():
        if name.isupper():
            context.collector.add_env(name)


def _analyse_segment(first: str, segment: str, offset: int, context: _ScanContext) -> None:
    """`_analyse_command` for a pipeline segment whose first word is `first`.

    Most segments run a plain command that installs nothing: only their first word matters, so the
    segment is split into words only when it needs more.
    """
    if first not in _PREFIX_WORDS and "=" not in first:
        role, name, handler = _command_role(first)
        if role == "command" and handler is None:
            if name is not None and name not in context.functions:
                context.collector.cli_tools.add(name)
            return
    _analyse_command(segment.split(), offset, context)


def _analyse_command(tokens: list[str], offset: int, context: _ScanContext) -> None:
    """Record the command of one pipeline segment, and the packages it installs."""
    if not tokens:
        return
    first = tokens[0]
    index = _skip_prefixes(tokens, context) if first in _PREFIX_WORDS or "=" in first else 0
    if index >= len(tokens):
        return
    word = tokens[index]
    role, name, handler = _command_role(word)
    if role == "declaration":
        _note_declarations(word, tokens[index + 1 :], context.variables)
    elif role == "lookup":
        _note_lookups(word, tokens[index + 1 :], context)
    elif name is not None and name not in context.functions:
        context.collector.cli_tools.add(name)
        if handler is not None:
            _record_packages(handler, tokens[index + 1 :], offset, context)


@functools.lru_cache(maxsize=8192)
def _command_role(word: str) -> tuple[str, str | None, _PackageReader | None]:
    """(role, command name, package reader) of the word in command position of a segment.

    The role is `declaration` (`export X=1`), `lookup` (`command -v jq`) or `command`; the name is
    None when the word is not a tool's name, the reader None when the command installs no packages.
    """
    if word in _DECLARATION_COMMANDS:
        return "declaration", None, None
    if word in _LOOKUP_COMMANDS:
        return "lookup", None, None
    name = _command_name(word)
    return "command", name, None if name is None else _package_handler(name)


def _note_lookups(word: str, args: list[str], context: _ScanContext) -> None:
    """`command -v jq`, `which ffmpeg`: the looked-up names are tools the skill expects."""
    if word in KNOWN_PROGRAMS:
        context.collector.cli_tools.add(word)
    for arg in args:
        if not arg.startswith("-"):
            name = _command_name(arg)
            if name is not None:
                context.collector.cli_tools.add(name)


def _skip_prefixes(tokens: list[str], context: _ScanContext) -> int:
    """Index of the real command after keywords, `VAR=value` assignments and wrappers like sudo."""
    index = 0
    count = len(tokens)
    while index < count:
        word = tokens[index]
        if word == "command":
            # `command -v x` looks x up (handled by the caller); `command x` just runs x.
            if index + 1 < count and tokens[index + 1] in ("-v", "-V"):
                break
            index += 1
        elif word in _KEYWORD_PREFIXES or ("=" in word and _note_assignment(word, context.variables)):
            index += 1
        elif word in _WRAPPER_VALUE_OPTIONS:
            context.collector.cli_tools.add(word)
            index = _skip_wrapper_options(tokens, index + 1, word)
        else:
            break
    return index


def _skip_wrapper_options(tokens: list[str], index: int, wrapper: str) -> int:
    value_options = _WRAPPER_VALUE_OPTIONS[wrapper]
    count = len(tokens)
    while index < count:
        arg = tokens[index]
        if arg == "--":
            return index + 1
        if arg.startswith("-"):
            index += 2 if arg in value_options else 1
        elif wrapper == "env" and "=" in arg:
            index += 1
        else:
            break
    if wrapper in _WRAPPERS_WITH_LEADING_ARG and index < count:
        index += 1
    return index


def _note_assignment(token: str, variables: _ShellVars) -> bool:
    match = _ASSIGNMENT_RE.match(token)
    if match is None:
        return False
    name, value = match.groups()
    # `TOKEN=${TOKEN:-default}` reads the environment; any other assignment makes a local variable.
    if f"${name}" not in value and f"${{{name}" not in value:
        variables.assigned.add(name)
    return True


def _note_declarations(word: str, args: list[str], variables: _ShellVars) -> None:
    names: list[str] = []
    for arg in args:
        if arg.startswith("-"):
            continue
        if word == "for":
            names.append(arg)
            break
        names.append(arg.split("=", 1)[0])
    valid = [n for n in names if _ENV_NAME_RE.match(n)]
    if word == "export" or (word in ("declare", "typeset") and "-x" in args):
        variables.exported.update(valid)
    else:
        variables.assigned.update(valid)


@functools.lru_cache(maxsize=8192)
def _command_name(word: str) -> str | None:
    """Normalised command name of a token in command position, or None when it is not one."""
    if (word[:1] in "\"'") != (word[-1:] in "\"'"):
        return None  # the tail or head of a quoted string (`RED='\033[0;31m'` splits at its `;`)
    word = word.strip("\"'")
    if "/" in word:
        if not (word.startswith("/") or "/bin/" in word):
            return None  # a relative path runs the skill's own script, not a tool
        word = word.rsplit("/", 1)[-1]
    if not _COMMAND_NAME_RE.match(word) or word.lower().endswith(_NOT_COMMAND_SUFFIXES):
        return None
    if word.isupper() and len(word) > 1:
        return None  # `GET /api`, `EOF`, `TODO`: commands are not written in capitals
    lowered = word.lower()
    if lowered in SHELL_BUILTINS or not any(c.isalpha() for c in lowered):
        return None
    return lowered


# --------------------------------------------------------------------------------------------------
# Install commands
# --------------------------------------------------------------------------------------------------


_PIP_VALUE_OPTIONS = _words(
    """
    -r --requirement -c --constraint -e --editable -i --index-url --extra-index-url -f --find-links -t
    --target --prefix --root --platform --python-version --implementation --abi --src --python -p
    --upgrade-strategy --progress-bar --only-binary --no-binary --trusted-host --cache-dir --log
    """
)
_NPM_VALUE_OPTIONS = frozenset({"--registry", "--prefix", "-w", "--workspace", "--filter", "-C", "--dir", "--cwd"})
_CARGO_VALUE_OPTIONS = _words(
    """
    --git --path --version --vers --branch --tag --rev --root --features -F --bin --example --target
    --registry --index --profile -j --jobs --rename -p --package --manifest-path
    """
)
_GEM_VALUE_OPTIONS = frozenset({"-v", "--version", "-i", "--install-dir", "-n", "--bindir", "--source", "-s"})
_APT_VALUE_OPTIONS = frozenset({"-o", "-t", "--target-release", "-c"})
_CONDA_VALUE_OPTIONS = frozenset({"-c", "--channel", "-n", "--name", "-p", "--prefix", "-f", "--file"})
_NO_VALUE_OPTIONS: frozenset[str] = frozenset()


def _package_handler(command: str) -> _PackageReader | None:
    """The reader of the packages that `command` may install; None for a command that installs none."""
    handler = _PACKAGE_HANDLERS.get(command)
    if handler is None:
        if command.startswith("python"):
            return _python_packages  # python3.12 -m pip install ...
        if command.startswith("pip3."):
            return _pip_packages
    return handler


def _record_packages(handler: _PackageReader, args: list[str], offset: int, context: _ScanContext) -> None:
    """The packages an install command (`pip install`, `npm i -g`, `brew install`, ...) names."""
    for ecosystem, spec in handler(args):
        name = _normalise_package(ecosystem, spec)
        if name is not None:
            context.collector.add_dependency(ecosystem, name, context.where, offset)


def _positionals(args: list[str], value_options: frozenset[str]) -> list[str]:
    """Non-option arguments, skipping the values of options that take one; stops at redirections."""
    found: list[str] = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg.startswith("-"):
            skip_next = arg in value_options
            continue
        if arg[0] in "<>" or arg[:2] in ("2>", "1>", "&>"):
            break
        found.append(arg)
    return found


def _after_subcommand(args: list[str], subcommands: Iterable[str]) -> list[str] | None:
    """Arguments after the first positional when it is one of `subcommands`, else None."""
    for index, arg in enumerate(args):
        if arg.startswith("-"):
            continue
        return args[index + 1 :] if arg in subcommands else None
    return None


_PackageHits = list[tuple[str, str]]
_PackageReader = Callable[[list[str]], _PackageHits]
"""Reads the (ecosystem, package spec) pairs from the arguments of an install command."""


def _pip_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install",))
    return [("pip", p) for p in _positionals(rest or [], _PIP_VALUE_OPTIONS)]


def _python_packages(args: list[str]) -> _PackageHits:
    if "-m" not in args:
        return []
    position = args.index("-m")
    if position + 1 >= len(args):
        return []
    module = args[position + 1]
    if module in ("pip", "pip3"):
        return _pip_packages(args[position + 2 :])
    distribution = _distribution_for_import(module)
    return [("pip", distribution)] if distribution else []


def _uv_packages(args: list[str]) -> _PackageHits:
    with_values = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--with", "-w")]
    hits = [("pip", p) for p in with_values]
    positional = [a for a in args if not a.startswith("-")]
    if positional[:2] == ["pip", "install"]:
        hits += _pip_packages(args[args.index("pip") + 1 :])
    elif positional[:1] == ["add"] or positional[:2] == ["tool", "install"]:
        start = args.index("install" if positional[0] == "tool" else "add") + 1
        hits += [("pip", p) for p in _positionals(args[start:], _PIP_VALUE_OPTIONS | {"--with", "-w"})]
    elif positional[:2] == ["tool", "run"]:
        hits += _uvx_packages(args[args.index("run") + 1 :])
    return hits


def _uvx_packages(args: list[str]) -> _PackageHits:
    if "--from" in args:
        position = args.index("--from")
        if position + 1 < len(args):
            return [("pip", args[position + 1])]
    positional = _positionals(args, _PIP_VALUE_OPTIONS | {"--with", "-w"})
    return [("pip", positional[0])] if positional else []


def _pipx_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install", "run"))
    positional = _positionals(rest or [], _PIP_VALUE_OPTIONS | {"--spec"})
    return [("pip", positional[0])] if positional else []


def _npm_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("i", "install", "add", "in", "isntall"))
    return [("npm", p) for p in _positionals(rest or [], _NPM_VALUE_OPTIONS)]


def _pnpm_packages(args: list[str]) -> _PackageHits:
    return _node_manager_packages(args, runner="dlx", adds=("add", "i", "install"))


def _yarn_packages(args: list[str]) -> _PackageHits:
    positional = [a for a in args if not a.startswith("-")]
    if positional[:1] == ["global"]:
        args = args[args.index("global") + 1 :]
    return _node_manager_packages(args, runner="dlx", adds=("add",))


def _bun_packages(args: list[str]) -> _PackageHits:
    return _node_manager_packages(args, runner="x", adds=("add", "i", "install"))


def _node_manager_packages(args: list[str], *, runner: str, adds: tuple[str, ...]) -> _PackageHits:
    """pnpm / yarn / bun: `<runner> pkg` runs a package like npx; `<add> pkg …` installs packages."""
    run_args = _after_subcommand(args, (runner,))
    if run_args is not None:
        return _npx_packages(run_args)
    rest = _after_subcommand(args, adds)
    return [("npm", p) for p in _positionals(rest or [], _NPM_VALUE_OPTIONS)]


def _npx_packages(args: list[str]) -> _PackageHits:
    hits = [("npm", args[i + 1]) for i, a in enumerate(args[:-1]) if a in ("-p", "--package")]
    if hits:
        return hits
    positional = _positionals(args, frozenset({"-c", "--call"}))
    return [("npm", positional[0])] if positional else []


def _cargo_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install", "add"))
    return [("cargo", p) for p in _positionals(rest or [], _CARGO_VALUE_OPTIONS)]


def _go_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install", "get"))
    return [("go", p) for p in _positionals(rest or [], frozenset({"-tags", "-modfile"}))]


def _gem_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install",))
    return [("gem", p) for p in _positionals(rest or [], _GEM_VALUE_OPTIONS)]


def _os_packages(ecosystem: str, subcommands: tuple[str, ...]) -> Callable[[list[str]], _PackageHits]:
    def handler(args: list[str]) -> _PackageHits:
        rest = _after_subcommand(args, subcommands)
        return [(ecosystem, p) for p in _positionals(rest or [], _APT_VALUE_OPTIONS)]

    return handler


def _pacman_packages(args: list[str]) -> _PackageHits:
    if not args or not args[0].startswith("-S") or "s" in args[0][2:]:
        return []  # -Ss is a search
    return [("pacman", p) for p in _positionals(args[1:], _NO_VALUE_OPTIONS)]


def _brew_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install", "reinstall"))
    return [("brew", p) for p in _positionals(rest or [], _NO_VALUE_OPTIONS)]


def _conda_packages(args: list[str]) -> _PackageHits:
    rest = _after_subcommand(args, ("install", "create"))
    return [("conda", p) for p in _positionals(rest or [], _CONDA_VALUE_OPTIONS)]


def _composer_packages(args: list[str]) -> _PackageHits:
    positional = [a for a in args if not a.startswith("-")]
    if positional[:1] == ["global"]:
        args = args[args.index("global") + 1 :]
    rest = _after_subcommand(args, ("require",))
    return [("composer", p) for p in _positionals(rest or [], _NO_VALUE_OPTIONS)]


def _dotnet_packages(args: list[str]) -> _PackageHits:
    if "package" not in args or _after_subcommand(args, ("add",)) is None:
        return []
    positional = _positionals(args[args.index("package") + 1 :], frozenset({"-v", "--version", "-s"}))
    return [("nuget", positional[0])] if positional else []


_PACKAGE_HANDLERS: dict[str, Callable[[list[str]], _PackageHits]] = {
    "pip": _pip_packages, "pip3": _pip_packages, "uv": _uv_packages, "uvx": _uvx_packages,
    "pipx": _pipx_packages, "npm": _npm_packages, "pnpm": _pnpm_packages, "yarn": _yarn_packages,
    "bun": _bun_packages, "npx": _npx_packages, "bunx": _npx_packages, "pnpx": _npx_packages,
    "cargo": _cargo_packages, "go": _go_packages, "gem": _gem_packages,
    "apt": _os_packages("apt", ("install",)), "apt-get": _os_packages("apt", ("install",)),
    "aptitude": _os_packages("apt", ("install",)), "dnf": _os_packages("rpm", ("install",)),
    "yum": _os_packages("rpm", ("install",)), "apk": _os_packages("apk", ("add",)),
    "pacman": _pacman_packages, "brew": _brew_packages, "conda": _conda_packages,
    "mamba": _conda_packages, "micromamba": _conda_packages, "composer": _composer_packages,
    "dotnet": _dotnet_packages,
}  # fmt: skip


def _normalise_package(ecosystem: str, spec: str) -> str | None:
    """Package name from an install argument or manifest entry, or None for paths, URLs, junk."""
    spec = spec.strip().strip("\"'")
    if not spec or spec[0] in ".~/$<{[" or "://" in spec or spec.startswith(("git+", "file:", "github:")):
        return None
    normaliser = _NORMALISERS.get(ecosystem, _normalise_simple)
    name = normaliser(spec)
    if name is None or name in _PLACEHOLDER_PACKAGES:
        return None
    return name


def _normalise_pip(spec: str) -> str | None:
    if "/" in spec or spec.endswith((".whl", ".tar.gz", ".zip", ".txt", ".toml")):
        return None
    match = _PIP_NAME_RE.match(spec)
    return _PIP_NORMALISE_RE.sub("-", match.group(0)).strip("-").lower() if match else None


def _normalise_npm(spec: str) -> str | None:
    spec = spec.removeprefix("npm:")
    match = _NPM_NAME_RE.match(spec)
    if match is None:
        return None
    name = match.group(0)
    rest = spec[len(name) :]
    if rest and rest[0] != "@":
        return None  # `user/repo` GitHub shorthand, tarball paths, ...
    return name.lower()


def _normalise_simple(spec: str) -> str | None:
    """The leading name of `name=1.2`, `name>=1`, `name:ver`, `name@ver`, lowercased."""
    match = _SIMPLE_NAME_RE.match(spec)
    return match.group(0).lower() if match else None


def _normalise_cargo(spec: str) -> str | None:
    name = _normalise_simple(spec.split("@", 1)[0])
    return name.replace("_", "-") if name else None


def _normalise_go(spec: str) -> str | None:
    module = spec.split("@", 1)[0].rstrip("/")
    module = module.removesuffix("/...")
    return module if _GO_MODULE_RE.match(module) else None


def _normalise_brew(spec: str) -> str | None:
    return spec.lower() if _BREW_NAME_RE.match(spec) else None


def _normalise_conda(spec: str) -> str | None:
    return _normalise_simple(spec.rsplit("::", 1)[-1])


def _normalise_composer(spec: str) -> str | None:
    match = _COMPOSER_NAME_RE.match(spec)
    return match.group(0).lower() if match else None


_NORMALISERS: dict[str, Callable[[str], str | None]] = {
    "pip": _normalise_pip, "npm": _normalise_npm, "cargo": _normalise_cargo, "go": _normalise_go,
    "brew": _normalise_brew, "conda": _normalise_conda, "composer": _normalise_composer,
}  # fmt: skip


# --------------------------------------------------------------------------------------------------
# Python
# --------------------------------------------------------------------------------------------------


def _scan_python(code: str, offset: int, context: _ScanContext) -> None:
    collector = context.collector
    if "import" in code:
        for match in _PY_IMPORT_RE.finditer("\n" + code):
            for module in _imported_modules(match):
                distribution = _distribution_for_import(module, context.local_names)
                if distribution is not None:
                    collector.add_dependency("pip", distribution, context.where, offset + match.start())
    if "environ" in code:
        for name in _PY_ENVIRON_RE.findall(code):
            collector.add_env(name)
    if "getenv" in code:
        for name in _PY_GETENV_RE.findall(code):
            collector.add_env(name)
    if "(" in code:
        _scan_python_processes(code, offset, context)
    if "# /// script" in code:
        _scan_pep723(code, offset, context)
    if "!" in code or "%" in code:
        for match in _PY_NOTEBOOK_SHELL_RE.finditer("\n" + code):
            _scan_shell(match.group(1), offset + match.start(), context)


def _imported_modules(match: re.Match[str]) -> list[str]:
    if match.group(1) is not None:
        return [match.group(1)]
    return [part.split()[0] for part in match.group(2).split(",") if part.strip()]


def _distribution_for_import(module: str, local_names: set[str] | None = None) -> str | None:
    """PyPI distribution for an imported module; None for stdlib, relative and local imports."""
    distribution, top = _import_distribution(module)
    if top is not None and local_names and top in local_names:
        return None
    return distribution


@functools.lru_cache(maxsize=4096)
def _import_distribution(module: str) -> tuple[str | None, str | None]:
    """(distribution, top-level name) of an import, before local names are ruled out.

    The name is None when a local module cannot shadow the import (it names a namespace package).
    """
    if not module or module.startswith("."):
        return None, None
    for prefix, distribution in _NAMESPACE_IMPORTS.items():
        if module == prefix or module.startswith(prefix + "."):
            if distribution is not None:
                return distribution, None
            rest = module[len(prefix) + 1 :].split(".", 1)[0]
            return (f"{prefix.replace('.', '-')}-{rest}".replace("_", "-") if rest else None), None
    top = module.split(".", 1)[0]
    if top in _PYTHON_STDLIB or top in _CONVENTIONAL_LOCAL_MODULES or top.startswith("_"):
        return None, None
    if top in ("google", "azure"):
        return None, None  # an unknown namespace sub-package: the distribution name cannot be guessed
    distribution = IMPORT_TO_DISTRIBUTION.get(top, top)
    return _PIP_NORMALISE_RE.sub("-", distribution).lower(), top


def _scan_python_processes(code: str, offset: int, context: _ScanContext) -> None:
    if "[" in code:
        for match in _PY_ARGV_LIST_RE.finditer(code):
            if _called_function(code, match.start()) in _PY_PROCESS_FUNCTIONS:
                argv = _STRING_LITERAL_RE.findall(match.group(1))
                _analyse_command(argv, offset + match.start(), context)
    for marker, shell_re in zip(("subprocess.", "os.", "create_subprocess_shell"), _PY_SHELL_STRING_RES, strict=True):
        if marker in code:
            for match in shell_re.finditer(code):
                _scan_shell(match.group(2), offset + match.start(), context)
    if "create_subprocess_exec" in code:
        for match in _PY_EXEC_ARGS_RE.finditer(code):
            _analyse_command([match.group(1)], offset + match.start(), context)
    if "which(" in code:
        for name in _PY_WHICH_RE.findall(code):
            command = _command_name(name)
            if command is not None:
                context.collector.cli_tools.add(command)


def _called_function(code: str, paren: int) -> str:
    """The identifier right before the `(` at `paren` (`run` in `subprocess.run(`)."""
    start = paren
    while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        start -= 1
    return code[start:paren]


def _scan_pep723(code: str, offset: int, context: _ScanContext) -> None:
    """PEP 723 inline script metadata (`# /// script` ... `# ///`), as used by `uv run`."""
    for match in _PEP723_RE.finditer(code):
        toml_text = "\n".join(line[2:] if line.startswith("# ") else line[1:] for line in match.group(1).splitlines())
        try:
            dependencies = tomllib.loads(toml_text).get("dependencies", [])
        except tomllib.TOMLDecodeError:
            continue
        for spec in _string_items(dependencies):
            name = _normalise_package("pip", spec)
            if name is not None:
                context.collector.add_dependency("pip", name, context.where, offset + match.start())


def _scan_notebook(text: str, path: str, collector: _Collector, local_names: set[str]) -> None:
    try:
        notebook = json.loads(text)
    except ValueError:
        return
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return
    context = _ScanContext(collector, _Where(path), local_names)
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source")
            code = "".join(_string_items(source)) if isinstance(source, list) else source
            if isinstance(code, str):
                _scan_python(code, 0, context)


# --------------------------------------------------------------------------------------------------
# JavaScript / TypeScript
# --------------------------------------------------------------------------------------------------


def _scan_javascript(code: str, offset: int, context: _ScanContext) -> None:
    collector = context.collector
    for marker, import_re in zip(("require", "import", "from"), _JS_IMPORT_RES, strict=True):
        if marker in code:
            for match in import_re.finditer(code):
                package = _npm_package_of_import(match.group(2))
                if package is not None:
                    collector.add_dependency("npm", package, context.where, offset + match.start())
    for marker, env_re in zip(("process.env", "Bun.env", "import.meta.env", "Deno.env"), _JS_ENV_RES, strict=True):
        if marker in code:
            for first, second in env_re.findall(code):
                collector.add_env(first or second)
    for marker, exec_re in zip(("exec", "spawn"), _JS_EXEC_RES, strict=True):
        if marker in code:
            for match in exec_re.finditer(code):
                _scan_js_process_call(code, match, offset, context)
    if "$`" in code:
        for match in _JS_TEMPLATE_SHELL_RE.finditer(code):
            _scan_shell(match.group(1), offset + match.start(), context)


def _scan_js_process_call(code: str, match: re.Match[str], offset: int, context: _ScanContext) -> None:
    before = code[max(0, match.start() - 16) : match.start()]
    if before.endswith(".") and not before.endswith(_JS_PROCESS_MODULES):
        return  # `regex.exec("...")` and other methods of the same name
    if before[-1:].isalnum() or before[-1:] in ("_", "$"):
        return  # part of a longer identifier
    function, literal = match.group(1), match.group(3)
    if function.startswith("exec") and not function.startswith("execFile"):
        _scan_shell(literal, offset + match.start(), context)
    else:
        _analyse_command(literal.split()[:1], offset + match.start(), context)


def _npm_package_of_import(specifier: str) -> str | None:
    specifier = specifier.strip()
    if not specifier or specifier[0] in "./~#$" or specifier.startswith(("node:", "bun:", "jsr:", "@/")):
        return None
    if "://" in specifier:
        return None
    specifier = specifier.removeprefix("npm:")
    parts = specifier.split("/")
    package = "/".join(parts[:2]) if specifier.startswith("@") else parts[0]
    if package in NODE_BUILTINS:
        return None
    return _normalise_npm(package)


# --------------------------------------------------------------------------------------------------
# Dockerfile
# --------------------------------------------------------------------------------------------------


def _scan_dockerfile(text: str, context: _ScanContext) -> None:
    """The shell commands of a Dockerfile's RUN instructions."""
    view = _selected_lines(_DOCKER_RUN_RE, text)
    if view is not None:
        _scan_shell(view, 0, context.at(_Where(context.where.path, view)))


# --------------------------------------------------------------------------------------------------
# Manifests
# --------------------------------------------------------------------------------------------------


def _scan_manifest(basename: str, path: str, text: str, collector: _Collector) -> bool:
    """Read a package manifest or `.env` template; False when the file is not one."""
    lowered = basename.lower()
    hits: Iterable[tuple[str, str]]
    if _REQUIREMENTS_NAME_RE.match(basename) or ("/requirements/" in f"/{path}" and lowered.endswith((".txt", ".in"))):
        hits = _requirements_txt(text)
    elif lowered == "pyproject.toml":
        hits = _pyproject(text)
    elif lowered == "package.json":
        hits = _package_json(text)
    elif lowered == "cargo.toml":
        hits = _cargo_toml(text)
    elif lowered == "go.mod":
        hits = [("go", m) for m in _GO_MOD_REQUIRE_RE.findall(text)]
    elif lowered == "gemfile":
        hits = [("gem", m) for m in _GEMFILE_RE.findall(text)]
    elif lowered in ("environment.yml", "environment.yaml"):
        hits = _environment_yml(text)
    elif lowered == ".env" or lowered.startswith(".env.") or lowered.endswith(".env.example"):
        for name in _DOTENV_LINE_RE.findall(text):
            collector.add_env(name)
        return True
    else:
        return False
    where = _Where(path)
    for ecosystem, spec in hits:
        name = _normalise_package(ecosystem, spec)
        if name is not None:
            collector.add_dependency(ecosystem, name, where)
    return True


def _requirements_txt(text: str) -> Iterator[tuple[str, str]]:
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            yield "pip", line


def _load_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _string_items(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _pyproject(text: str) -> Iterator[tuple[str, str]]:
    document = _load_toml(text)
    project = _mapping(document.get("project"))
    for spec in _string_items(project.get("dependencies")):
        yield "pip", spec
    for group in _mapping(project.get("optional-dependencies")).values():
        for spec in _string_items(group):
            yield "pip", spec
    poetry = _mapping(_mapping(document.get("tool")).get("poetry"))
    for table in ("dependencies", "dev-dependencies"):
        for name in _mapping(poetry.get(table)):
            if name.lower() != "python":
                yield "pip", name


def _package_json(text: str) -> Iterator[tuple[str, str]]:
    try:
        document = json.loads(text)
    except ValueError:
        return
    if not isinstance(document, dict):
        return
    for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        for name in _mapping(document.get(table)):
            yield "npm", name


def _cargo_toml(text: str) -> Iterator[tuple[str, str]]:
    document = _load_toml(text)
    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
        for name, value in _mapping(document.get(table)).items():
            renamed = _mapping(value).get("package")
            yield "cargo", renamed if isinstance(renamed, str) else name


def _environment_yml(text: str) -> Iterator[tuple[str, str]]:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return
    dependencies = _mapping(document).get("dependencies")
    if not isinstance(dependencies, list):
        return
    for item in dependencies:
        if isinstance(item, str):
            yield "conda", item
        elif isinstance(item, dict):
            for spec in _string_items(item.get("pip")):
                yield "pip", spec


# --------------------------------------------------------------------------------------------------
# Frontmatter and ClawHub
# --------------------------------------------------------------------------------------------------


def _scan_frontmatter(frontmatter: dict[str, Any], collector: _Collector) -> None:
    allowed_tools = frontmatter.get("allowed-tools")
    tools_text = " ".join(_string_items(allowed_tools)) if isinstance(allowed_tools, list) else allowed_tools
    if isinstance(tools_text, str) and "Bash(" in tools_text:
        for word in _ALLOWED_TOOLS_BASH_RE.findall(tools_text):
            command = _command_name(word)
            if command is not None:
                collector.cli_tools.add(command)
    env = frontmatter.get("env")
    names = list(env) if isinstance(env, dict) else _string_items(env)
    for name in names:
        if isinstance(name, str) and _ENV_NAME_RE.match(name):
            collector.add_env(name)


_INSTALL_KIND_ECOSYSTEM = {
    "brew": "brew", "node": "npm", "npm": "npm", "go": "go", "uv": "pip", "pip": "pip",
    "apt": "apt", "cargo": "cargo", "gem": "gem", "conda": "conda",
}  # fmt: skip
_INSTALL_NAME_FIELDS = ("formula", "package", "module", "crate", "name", "cask")


def _scan_clawhub(clawhub: ClawHubMeta, collector: _Collector) -> None:
    for binary in [*clawhub.bins, *clawhub.any_bins]:
        command = _command_name(binary)
        if command is not None:
            collector.declared_programs.add(command)
    for name in [*clawhub.env, *([clawhub.primary_env] if clawhub.primary_env else [])]:
        collector.add_env(name)
    where = _Where("frontmatter:install")
    for entry in clawhub.install:
        kind, recipe = _install_recipe(entry)
        ecosystem = _INSTALL_KIND_ECOSYSTEM.get(kind)
        if ecosystem is None:
            continue
        specs = [recipe[f] for f in _INSTALL_NAME_FIELDS if isinstance(recipe.get(f), str)]
        package = _normalise_package(ecosystem, specs[0]) if specs else None
        if package is not None:
            collector.add_dependency(ecosystem, package, where)


def _install_recipe(entry: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(kind, recipe) of an install entry; also accepts the `{"brew": {...}}` shape."""
    kind = entry.get("kind")
    if isinstance(kind, str):
        return kind.lower(), entry
    if len(entry) == 1:
        only_key, value = next(iter(entry.items()))
        if isinstance(value, dict):
            return str(only_key).lower(), value
    return "", entry


_VIEW_SCANNERS: dict[str, Callable[[str, int, _ScanContext], None]] = {
    "shell": _scan_shell,
    "python": _scan_python,
    "javascript": _scan_javascript,
}


# --------------------------------------------------------------------------------------------------
# Env var filtering
# --------------------------------------------------------------------------------------------------


def _is_interesting_env(name: str) -> bool:
    return (
        len(name) >= 2
        and name not in UBIQUITOUS_ENV_VARS
        and not name.startswith(_UBIQUITOUS_ENV_PREFIXES)
        and _ENV_NAME_RE.match(name) is not None
    )
