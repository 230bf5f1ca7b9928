"""Criterion 3, deployment feasibility: can the skill be exercised without outside commitments?

Fails what needs a key from a commercial service (`needs:paid-api-key:<VAR>`), a live personal
or company account (`needs:live-account:<service>`), real money (`needs:real-money`), or a
hosted service that cannot run in a container (`needs:external-service:<what>`).

Keys that a local, self-hostable service provides, secrets the user generates (JWT, session,
webhook signing), and optional keys of free public data sources are not requirements. Mentions
are weighed by where they are: ClawHub's `requires.env` is decisive, SKILL.md and scripts count,
long references do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import compress

from skill2env.catalog.models import Signal, SkillRecord
from skill2env.catalog.signals import (
    CODE_SUFFIXES,
    CREDENTIAL_NAME,
    SUBJECT_PATH,
    evidence_line,
    has_ascii_twins,
    literal_first,
    literal_starts,
    search_from_starts,
)
from skill2env.curation.models import Criterion, Outcome, Verdict
from skill2env.curation.practical import lower_text, mentions_any, skill_body, skill_subject, subject_signals

_GENERIC_PREFIXES = (
    "YOUR_", "MY_", "EXAMPLE_", "SAMPLE_", "TEST_", "FAKE_", "DUMMY_", "XXX", "SERVICE_", "SERVICENAME_",
    "PROVIDER_", "VENDOR_", "THIRD_PARTY_", "PROD_", "DEV_", "STAGING_", "NEW_", "OLD_", "OTHER_",
)  # fmt: skip
_GENERIC_NAMES = frozenset(
    {"API_KEY", "API_TOKEN", "SECRET_KEY", "ACCESS_TOKEN", "AUTH_TOKEN", "ACCESS_KEY", "PUBLIC_KEY", "PRIVATE_KEY",
     "CLIENT_ID", "CLIENT_SECRET", "APP_KEY", "BEARER_TOKEN", "REFRESH_TOKEN", "ID_TOKEN", "USER_PASSWORD"}
)  # fmt: skip
# Secrets the user makes up, and credentials of services that run locally or self-hosted.
_LOCAL_PREFIXES = (
    "JWT_", "SESSION_", "ENCRYPTION_", "SIGNING_", "COOKIE_", "CSRF_", "NEXTAUTH_", "AUTH_SECRET", "APP_SECRET",
    "DJANGO_", "FLASK_", "RAILS_", "LARAVEL_", "ADMIN_", "ROOT_", "DB_", "DATABASE_", "POSTGRES", "PG", "MYSQL",
    "MARIADB", "REDIS", "MONGO", "RABBITMQ", "AMQP", "KAFKA", "ELASTIC", "OPENSEARCH", "MINIO", "VAULT_",
    "LOCAL_", "LOCALHOST", "GRAFANA", "PROMETHEUS", "OLLAMA", "QDRANT", "CHROMA", "WEAVIATE", "MEILI",
    "TYPESENSE", "NEO4J", "CLICKHOUSE", "SUPABASE_ANON", "PIHOLE", "OVERSEERR", "RADARR", "SONARR", "LIDARR",
    "PROWLARR", "JELLYFIN", "EMBY", "FRESHRSS", "BOOKSTACK", "NEXTCLOUD", "GITEA", "FORGEJO", "PAPERLESS",
    "IMMICH", "MEALIE", "N8N", "NODE_RED", "AIRFLOW", "MLFLOW", "KEEP_", "WEBHOOK_", "SMTP_", "IMAP_",
)  # fmt: skip
_LOCAL_SUFFIXES = ("_WEBHOOK_SECRET", "_SIGNING_SECRET", "_SIGNING_KEY", "_ENCRYPTION_KEY", "_PUBLIC_KEY")
_SECRET_WORD = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|EMAIL|USER|ACCOUNT|CREDENTIAL", re.I)
_WALLET = re.compile(r"WALLET|SOLANA|ETH|EVM|BTC|BITCOIN|MNEMONIC|SEED|CRYPTO|CHAIN|LIGHTNING|BASE_", re.I)
_OPTIONAL_LINE = re.compile(
    r"\boptional(?:ly)?\b|\bnot\s+required\b|\b(?:is|are|but)\s+recommended\b|\|\s*recommended\b"
    r"|\bif\s+(?:you\s+have|available|set)\b|\bhigher\s+rate|\brate[- ]limits?\b|\|\s*no\b|\bfallback\b"
    r"|\bno\s+(?:api\s+)?key\b|\b(?:does\s+not|do\s+not|doesn't|don't|never)\s+(?:need|require)\b(?!\s+to\b)"
    r"|\b(?:never|not)\s+(?:needed|required|necessary)\b|\b(?:instead\s+of|rather\s+than|without)\s+calling\b",
    re.IGNORECASE,
)
_OPTIONAL_LINE_LOWER = re.compile(literal_first(_OPTIONAL_LINE.pattern))
"""`_OPTIONAL_LINE` for lower-cased text: each alternative starts with a literal the engine finds at C speed."""
# Logging in to an account of one's own, as opposed to implementing a login flow.
_PERSONAL_LOGIN = re.compile(
    r"\byour\b|\bmy\b|`[a-z][\w.-]*\s+(?:auth\s+)?login\b|^\s*(?:\$\s*)?[a-z][\w.-]*\s+(?:auth\s+)?login\b"
    r"|\bbot\s+token\b|\bpersonal\s+access\s+token\b|\bapp[- ]specific\s+password\b|\bsession\s+cookies?\b",
    re.IGNORECASE,
)
_SETUP_LINE = re.compile(
    r"\bexport\s|\bset\s|\.env\b|\benv(?:ironment)?\s+var|\brequire[sd]?\b|\bneeds?\b|\bmust\b|\bconfigure"
    r"|\b(?:get|obtain|create|generate)\b[^\n]{0,40}\b(?:key|token)|\bfrom\s+https?://|^\s*[-*]?\s*`?[A-Z][A-Z0-9_]+`?\s*[:=—-]",
    re.IGNORECASE,
)
# "no (external, paid) API key required": up to two words may say which key
_KEYS_OPTIONAL = re.compile(
    r"\b(?:no|without(?:\s+an?)?)\s+(?:[\w-]+\s+){0,2}?(?:api[- ]?)?keys?\s+(?:needed|required|necessary)\b"
    r"|\bno\s+api[- ]?key\b"
    r"|\b(?:does\s+not|doesn't)\s+(?:need|require)\s+(?:an?\s+|any\s+)?(?:[\w-]+\s+)?(?:api[- ]?)?keys?\b"
    r"|\bapi[- ]?keys?\s+(?:are|is)\s+(?:optional|not\s+(?:needed|required))\b|\bfully\s+open\b"
    r"|\bno\s+(?:auth|authentication|registration|sign-?up|account)\s+(?:needed|required)\b|\bkeyless\b",
    re.IGNORECASE,
)
_SIMULATED = re.compile(
    r"\bread[- ]only\b|\bpaper[- ]trading\b|\bsimulat(?:ed|ion|or)\b|\bbacktest|\btestnet\b|\bsandbox\b|\bmock\b"
    r"|\bdevnet\b|\blocal\s+(?:chain|node|fork)\b|\bhardhat\b|\bfoundry\b|\banvil\b",
    re.IGNORECASE,
)
_MONEY_SUBJECT = re.compile(
    r"\btrad(?:e|es|ing)\b|\bexchange\b|\bwallets?\b|\bpayments?\b|\bpay\b|\bcheckout\b|\bbid(?:s|ding)?\b|\bauctions?\b"
    r"|\bswap\b|\bdex\b|\bdefi\b|\bbuy\b|\bsell\b|\border\s+(?:food|groceries)|\btransfers?\b|\bbrokerage\b"
    r"|\bmicropayments?\b|\bx402\b|\busdc\b|\bstablecoins?\b|\bportfolio\b|\bbank(?:ing)?\b|\bstripe\b|\bpaypal\b",
    re.IGNORECASE,
)
# Words near a service name that show the skill works on an account, not just about the service.
_ACCOUNT_CONTEXT = re.compile(
    r"\b(?:your|my|user'?s|their|account|inbox|messages?|dms?|chats?|channels?|servers?|workspaces?|tasks?"
    r"|projects?|issues?|pull\s+requests?|prs|repos?|timelines?|tweets?|posts?|feeds?|profiles?|contacts?"
    r"|calendars?|events?|emails?|notes?|data|history|stats|activity|sleep|workouts?|highlights?|vault"
    r"|send|post|read|reply|manage|sync|upload|publish(?:es|ing|ed)?|publication|control|interact|access|query|fetch)\b",
    re.IGNORECASE,
)


_HOST = re.compile(r"(?:https?|wss?)://([a-z0-9.-]+)", re.IGNORECASE)
_URL = re.compile(r"\b(?:https?|wss?)://\S+|\b(?:github|gitlab)\.com/\S+", re.IGNORECASE)
_LOCAL_URL = re.compile(
    r"\blocalhost\b|\b127\.0\.0\.1\b|\b0\.0\.0\.0\b|\b192\.168\.|\b10\.\d+\.|\.local\b|\bexample\.(?:com|org|net)\b",
    re.IGNORECASE,
)
_SELF_HOSTED = re.compile(
    r"\bself[- ]hosted\b|\byour\s+own\s+(?:\w+\s+)?(?:server|instance)\b|\blocal\s+(?:instance|server|network|lan)\b"
    r"|\bon\s+your\s+(?:lan|network)\b",
    re.IGNORECASE,
)
_BENIGN_HOST = re.compile(
    r"^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+)$|\.local$|\.localhost$"
    r"|(?:^|\.)(?:example\.(?:com|org|net)|github\.com|githubusercontent\.com|gitlab\.com|pypi\.org|npmjs\.(?:org|com)"
    r"|w3\.org|schema\.org|json-schema\.org|shields\.io|jsdelivr\.net|unpkg\.com|cdnjs\.cloudflare\.com|"
    r"googleapis\.com|readthedocs\.io)$|^(?:your|my)[\w-]*\.|yourdomain|your-|\{|\$",
    re.IGNORECASE,
)
# Live outside data, as a skill's description says it: fetching, searching or watching what a
# remote service publishes now. Task containers run without network, so such a skill has nothing to do.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
_RETRIEVAL = re.compile(
    r"\b(?:search(?:es|ing)?|fetch(?:es|ing)?|quer(?:y|ies|ying)|look(?:s|ing)?\s+up|monitors?|watch(?:es)?"
    r"|polls?|scrap(?:e|es|ing)|download(?:s|ing)?|retriev(?:e|es|ing))\b",
    re.IGNORECASE,
)
_RETRIEVAL_NEEDLES = ("search", "fetch", "quer", "look", "monitor", "watch", "poll", "scrap", "download", "retriev")
_LIVE_CUE = re.compile(
    r"\b(?:latest|recent|daily|today'?s|real[- ]time|live|new\s+(?:filings|posts|papers|releases|articles|listings)"
    r"|(?:rest|web|public|online)\s+apis?|listings?|schedules?|timetables?|headlines|mailing\s+lists?"
    r"|[a-z0-9-]+\.(?:com|net|org|io|gov|es|de|fr|co\.uk))\b",
    re.IGNORECASE,
)
_OFFLINE = re.compile(
    r"\boffline\b|\blocal(?:ly)?\b|\bself[- ]hosted\b|\bno\s+network\b|\bwithout\s+(?:network|internet)\b", re.I
)
_NEED_STATING_SUFFIXES = (".py", ".sh", ".js", ".mjs", ".ts", ".rb", ".go", ".rs", ".ps1", ".env", ".example")
KEYS_OPTIONAL_WITHIN = 3_000
"""A "no API key needed" statement counts for the whole skill only in the opening of SKILL.md."""
MIN_API_REQUESTS = 2
"""A remote host the SKILL.md sends this many requests to is a service the skill depends on."""


_KEYS_OPTIONAL_STARTS = literal_starts(_KEYS_OPTIONAL.pattern)
_KEYS_OPTIONAL_WORDS = ("key", "fully", "needed", "required")
"""Every match of `_KEYS_OPTIONAL` holds one of these, in some case."""


@dataclass(frozen=True)
class Service:
    """A hosted service whose use means a live account: personal or company data behind a login."""

    slug: str
    pattern: re.Pattern[str]
    """How the skill's name or description names the service."""
    env_prefixes: tuple[str, ...]
    """How its credential variables start (`SLACK_BOT_TOKEN`)."""
    starts: tuple[str, ...] = ()
    """What every match of `pattern` starts with (see `literal_starts`), for a fast search."""


def _service(slug: str, pattern: str, env_prefixes: str = "") -> Service:
    prefixes = tuple(env_prefixes.split()) or (slug.upper().replace("-", "_"),)
    return Service(slug, re.compile(pattern, re.IGNORECASE), prefixes, literal_starts(pattern))


SERVICES: tuple[Service, ...] = (
    _service("gmail", r"\bgmail\b|\bgoogle\s+mail\b", "GMAIL"),
    _service(
        "google-workspace",
        r"\bgoogle\s+(?:calendar|drive|docs|sheets|workspace|contacts)\b|\bgcal\b",
        "GOOGLE_CALENDAR GOOGLE_DRIVE GOOGLE_OAUTH GOOGLE_CLIENT GCAL GDRIVE",
    ),
    _service(
        "outlook",
        r"\boutlook\b|\bmicrosoft\s+365\b|\bms365\b|\boffice\s+365\b|\bexchange\s+online\b",
        "OUTLOOK MS365 MICROSOFT AZURE_AD",
    ),
    _service("email", r"\bemails?\b[^\n]{0,40}\b(?:inbox|send|read|imap|smtp|providers?)\b|\binbox\b", "EMAIL"),
    _service("slack", r"\bslack\b", "SLACK"),
    _service("discord", r"\bdiscord\b", "DISCORD"),
    _service("telegram", r"\btelegram\b", "TELEGRAM TG_"),
    _service("whatsapp", r"\bwhatsapp\b", "WHATSAPP WA_"),
    _service("imessage", r"\bimessages?\b|\bbluebubbles\b", "IMESSAGE BLUEBUBBLES"),
    _service("twitter", r"\btwitter\b|\bx\.com\b|\bx/twitter\b", "TWITTER X_ XAI_X"),
    _service("instagram", r"\binstagram\b", "INSTAGRAM IG_"),
    _service("facebook", r"\bfacebook\b|\bmeta\s+(?:ads|business)\b", "FACEBOOK FB_ META_"),
    _service("linkedin", r"\blinkedin\b", "LINKEDIN"),
    _service("reddit", r"\breddit\b", "REDDIT"),
    _service("tiktok", r"\btiktok\b", "TIKTOK"),
    _service("mastodon", r"\bmastodon\b", "MASTODON"),
    _service("bluesky", r"\bbluesky\b|\bbsky\b", "BLUESKY BSKY"),
    _service("youtube", r"\byoutube\s+(?:channel|upload|studio|account|data\s+api)\b", "YOUTUBE"),
    _service("notion", r"\bnotion\b", "NOTION"),
    _service("todoist", r"\btodoist\b", "TODOIST"),
    _service("ticktick", r"\bticktick\b", "TICKTICK"),
    _service("trello", r"\btrello\b", "TRELLO"),
    _service("asana", r"\basana\b", "ASANA"),
    _service("linear", r"\blinear(?:\.app)?\s+(?:issues?|api|projects?|app|cli)\b|\blinear\.app\b", "LINEAR"),
    _service("jira", r"\bjira\b|\bconfluence\b|\batlassian\b", "JIRA CONFLUENCE ATLASSIAN"),
    _service("clickup", r"\bclickup\b", "CLICKUP"),
    _service("airtable", r"\bairtable\b", "AIRTABLE"),
    _service("github", r"\bgithub\b|\bgh\s+(?:cli|pr|issue|api)\b", "GITHUB GH_"),
    _service("gitlab", r"\bgitlab\b|\bglab\b", "GITLAB GLAB"),
    _service("salesforce", r"\bsalesforce\b", "SALESFORCE SF_ SFDC"),
    _service("hubspot", r"\bhubspot\b", "HUBSPOT"),
    _service("shopify", r"\bshopify\b", "SHOPIFY"),
    _service("spotify", r"\bspotify\b", "SPOTIFY"),
    _service("lastfm", r"\blast\.?fm\b", "LASTFM"),
    _service("strava", r"\bstrava\b", "STRAVA"),
    _service("garmin", r"\bgarmin\b", "GARMIN"),
    _service("fitbit", r"\bfitbit\b", "FITBIT"),
    _service("oura", r"\boura\b", "OURA"),
    _service("whoop", r"\bwhoop\b", "WHOOP"),
    _service("hevy", r"\bhevy\b", "HEVY"),
    _service("readwise", r"\breadwise\b", "READWISE"),
    _service("dropbox", r"\bdropbox\b", "DROPBOX"),
    _service("icloud", r"\bicloud\b", "ICLOUD APPLE_ID"),
    _service("password-manager", r"\b1password\b|\bbitwarden\b|\blastpass\b|\bkeepass\b", "OP_ BW_ BITWARDEN"),
    _service("figma", r"\bfigma\b", "FIGMA"),
    _service("ad-platform", r"\bgoogle\s+ads\b|\bbing\s+ads\b|\bmicrosoft\s+advertising\b", "GOOGLE_ADS MSADS"),
    _service("zoom", r"\bzoom\s+(?:meetings?|api|account)\b", "ZOOM"),
    _service("fulcra", r"\bfulcra\b", "FULCRA"),
    _service("eight-sleep", r"\beight\s?sleep\b|\beightctl\b", "EIGHTCTL EIGHT_SLEEP EIGHTSLEEP"),
    _service("youtrack", r"\byoutrack\b", "YOUTRACK"),
    _service("tesla", r"\btesla\s+(?:account|owner|vehicles?|cars?)\b|\bteslapy\b", "TESLA"),
    _service("banking", r"\bbank\s+(?:accounts?|connections?|transactions)\b|\bplaid\b|\bcopilot\s+money\b", "PLAID"),
    _service("food-delivery", r"\bswiggy\b|\bdoordash\b|\buber\s?eats\b|\binstacart\b|\bgrocery\s+shopping\b"),
)  # fmt: skip
_SERVICE_STARTS = tuple((start, index) for index, service in enumerate(SERVICES) for start in service.starts)
_SERVICE_WORDS = tuple(start for start, _ in _SERVICE_STARTS)
_SERVICE_INDEXES = tuple(index for _, index in _SERVICE_STARTS)
_CLOUD_PATTERNS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    # (cloud, lower-case needles one of which must be present, the pattern proving an account is used)
    ("aws", ("aws",), re.compile(r"\baws\s+configure\b|\baws_access_key_id\b|\baws\s+sso\s+login\b", re.I)),
    (
        "gcp",
        ("gcloud", "google_application"),
        re.compile(r"\bgcloud\s+auth\b|\bgoogle_application_credentials\b", re.I),
    ),
    ("azure", ("az login", "azure_"), re.compile(r"\baz\s+login\b|\bazure_(?:client|tenant)_", re.I)),
    ("hetzner", ("hcloud",), re.compile(r"\bhcloud\s+context\b|\bhcloud_token\b", re.I)),
    (
        "digitalocean",
        ("doctl", "digitalocean"),
        re.compile(r"\bdoctl\s+auth\b|\bdigitalocean_(?:access_)?token\b", re.I),
    ),
    ("cloudflare", ("wrangler", "cloudflare"), re.compile(r"\bwrangler\s+login\b|\bcloudflare_api_token\b", re.I)),
)
_CLOUDS = tuple(
    (cloud, needles, tuple(n for n in needles if "cloud" not in n), pattern, literal_starts(pattern.pattern))
    for cloud, needles, pattern in _CLOUD_PATTERNS
)
"""Each cloud with its needles, those without "cloud", and what its pattern's matches start with."""


def judge_feasible(record: SkillRecord) -> Verdict:
    """Judge whether the skill can be exercised without paid keys, live accounts, money or SaaS."""
    subject = skill_subject(record)
    body = skill_body(record)
    signals = [s for s in record.signals if _counts(s, record)]
    signals.extend(subject_signals(subject))
    reasons, evidence = _failures(record, subject, body, signals)
    if reasons:
        return Verdict(criterion=Criterion.feasible, outcome=Outcome.fail, reasons=reasons, evidence=evidence[:8])
    harness = live_harness_line(record, body)
    if harness:
        # the agent harness's own sessions, cron jobs, channels or gateway: a live deployment, not a task input
        return Verdict(
            criterion=Criterion.feasible, outcome=Outcome.fail, reasons=["needs:live-harness"], evidence=[harness]
        )
    apis = remote_api_hosts(signals)
    own = _own_service_key(record, subject, signals)
    if own and not apis:
        return Verdict(
            criterion=Criterion.feasible,
            outcome=Outcome.fail,
            reasons=[f"needs:network:{own[0]}"],
            evidence=[own[1]],
        )
    if apis:
        # a live third-party API, even without a key: task containers run offline, and its answers
        # change from one day to the next
        host = apis[0][0]
        calls = [evidence_line(s) for s in signals if s.code.startswith("remote-api") and _host(s.excerpt) == host]
        return Verdict(
            criterion=Criterion.feasible, outcome=Outcome.fail, reasons=[f"needs:network:{host}"], evidence=calls[:3]
        )
    fetch = network_fetch(record, body)
    if fetch:
        return Verdict(criterion=Criterion.feasible, outcome=Outcome.fail, reasons=[fetch[0]], evidence=[fetch[1]])
    live = live_data_sentence(subject)
    if live:
        return Verdict(
            criterion=Criterion.feasible,
            outcome=Outcome.fail,
            reasons=["needs:network:live-data"],
            evidence=[f"{SUBJECT_PATH}: {live}"],
        )
    return Verdict(criterion=Criterion.feasible, outcome=Outcome.pass_)


_WEAK_NEEDS = ("api-credential", "api-key-signup", "api-auth-header", "live-account", "remote-api", "real-money")


def offline_evidence(record: SkillRecord) -> list[str]:
    """Why a skill passes as feasible: no required account, key, paid service or live API, with the
    statements that were weighed and found not to be needs (optional, local, an example)."""
    where = record.skill_md_file
    found = [f"{where}: no required account, API key, paid service, real money or live remote API"]
    body = skill_body(record)
    stated = _keys_optional_line(
        record.skill_md_text or "", body[:KEYS_OPTIONAL_WITHIN], lower_text(body)[:KEYS_OPTIONAL_WITHIN]
    )
    if stated:
        found.append(f"{where}:{stated[0]}: {stated[1]} (says no key is needed)")
    weighed = [s for s in record.signals if s.code.startswith(_WEAK_NEEDS) and _counts(s, record)]
    for signal in weighed[:2]:
        found.append(f"{evidence_line(signal)} (weighed: optional, local, self-made or an example)")
    own = [name for name in record.env_vars if classify_credential(name) is None and _SECRET_WORD.search(name)]
    if own:
        found.append(f"{where}: variables {', '.join(own[:4])}: secrets the user sets or a local service's")
    return found


def _keys_optional_line(text: str, head: str, lower: str) -> tuple[int, str] | None:
    """The line number (in `text`, line ends normalized) and line of the "no key needed" statement in
    `head`, the opening of the body (the end of `text`); `lower` is `head` lower-cased (as `_keys_optional`)."""
    if not mentions_any(head, lower, _KEYS_OPTIONAL_WORDS):
        return None
    match = search_from_starts(_KEYS_OPTIONAL, head, _KEYS_OPTIONAL_STARTS, lower)
    if match is None:
        return None
    start = head.rfind("\n", 0, match.start()) + 1
    end = head.find("\n", match.start())
    line = " ".join(head[start : len(head) if end == -1 else end].split())[:140]
    text = text.replace("\r\n", "\n")
    at = text.find(head[start : start + 200]) if start else text.find(head[:200])
    return text.count("\n", 0, max(at, 0)) + 1, line


# Operations on the running agent harness: its CLI run on sessions, cron jobs, channels, agents or the
# gateway, its session tools, its gateway socket; in the subject, the harness's own live objects.
_HARNESS_OPERATION_PATTERN = (
    r"\b(?:openclaw|clawdbot|moltbot)\s+(?:agent|cron|message|sessions?|gateway|channels?|nodes)\b"
    r"|\bsessions_(?:list|history|send|spawn)\b|\bgateway\s+websocket\b"
)
_HARNESS_OPERATION = re.compile(_HARNESS_OPERATION_PATTERN, re.IGNORECASE)
_HARNESS_OPERATION_STARTS = literal_starts(_HARNESS_OPERATION_PATTERN)
_COMMAND_START = re.compile(r"(?:^|`|\$|\d|&&|\|)\s*\Z", re.MULTILINE)
"""What comes before a harness CLI call run as a command: a line start, a backtick, a prompt, a cron
schedule, a chained command."""
_HARNESS_SUBJECT = re.compile(
    r"\b(?:openclaw|clawdbot|moltbot)(?:'s)?\s+(?:cron\s+jobs?|sessions?|gateway|channels?|conversations?)\b",
    re.IGNORECASE,
)
_HARNESS_NEEDLES = ("claw", "moltbot", "sessions_", "gateway websocket")
"""Every harness operation or subject match holds one of these ("claw" for openclaw and clawdbot)."""


def live_harness_line(record: SkillRecord, body: str) -> str | None:
    """`SKILL.md:<line>: <text>` of the first operation on the live agent harness (its sessions, cron
    jobs, channels, gateway) that the skill's name, description or SKILL.md performs."""
    for where, text in ((SUBJECT_PATH, skill_subject(record)), (record.skill_md_file, body)):
        lower = lower_text(text) if text is body else text.lower()
        if not any(map(lower.__contains__, _HARNESS_NEEDLES)):
            continue
        match = _harness_match(text, lower, subject=where == SUBJECT_PATH)
        if match:
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.start())
            excerpt = " ".join(text[line_start : len(text) if line_end == -1 else line_end].split())[:160]
            if where == SUBJECT_PATH:
                return f"{where}: {excerpt}"
            full = (record.skill_md_text or "").replace("\r\n", "\n")
            line = full.count("\n", 0, max(len(full) - len(body), 0) + match.start()) + 1
            return f"{where}:{line}: {excerpt}"
    return None


def _harness_match(text: str, lower: str, *, subject: bool) -> re.Match[str] | None:
    if subject:
        return _HARNESS_SUBJECT.search(text)
    for match in _finditer_from_starts(_HARNESS_OPERATION, text, _HARNESS_OPERATION_STARTS, lower):
        if match.group()[:1] in "sSgG":  # a session tool or the gateway socket
            return match
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _COMMAND_START.search(text, line_start, match.start()):
            return match
    return None


def _without_urls(text: str) -> str:
    """`_URL.sub(" ", text)`; every URL it removes holds "://" or ".com/" (letters without twins)."""
    if "://" not in text and ".com/" not in text.lower():
        return text
    return _URL.sub(" ", text)


def _says_optional(line: str) -> bool:
    """`_OPTIONAL_LINE.search(line)`: the line calls a key or a service optional."""
    if has_ascii_twins(line):
        return _OPTIONAL_LINE.search(line) is not None
    return _OPTIONAL_LINE_LOWER.search(line.lower()) is not None


def _finditer_from_starts(
    pattern: re.Pattern[str], text: str, starts: tuple[str, ...], lower: str
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, tried only where `lower` (`text.lower()`) has one of `starts` (the
    conditions of `search_from_starts`), for a pattern that never matches the empty string."""
    if has_ascii_twins(text):
        yield from pattern.finditer(text)
        return
    positions: set[int] = set()
    for start in starts:
        at = lower.find(start)
        while at != -1:
            positions.add(at)
            at = lower.find(start, at + 1)
    end = 0
    for at in sorted(positions):
        if at < end:
            continue  # inside the previous match, which finditer steps over
        match = pattern.match(text, at)
        if match:
            end = match.end()
            yield match


def _own_service_key(record: SkillRecord, subject: str, signals: list[Signal]) -> tuple[str, str] | None:
    """The service the skill is about, when SKILL.md calls its key optional: the service answers without
    a key, so the workflow calls it over the network (`TFL_APP_KEY` "if you have one", in a TfL skill)."""
    words: set[str] | None = None  # the subject's words, split when a key is called optional
    for signal in signals:
        if signal.code != "api-credential" or not _says_optional(signal.excerpt):
            continue
        for name in CREDENTIAL_NAME.findall(signal.excerpt):
            prefix = name.split("_", 1)[0].lower()
            if words is None:
                words = {word for word in re.findall(r"[a-z0-9]+", subject.lower()) if len(word) >= 3}
            if prefix in words and classify_credential(name) == "paid-api-key":
                return prefix, evidence_line(signal)
    return None


# Programs whose whole job is fetching media from sites: a workflow that runs one needs the network.
_DOWNLOADERS = ("yt-dlp", "youtube-dl", "gallery-dl", "you-get", "streamlink", "spotdl", "instaloader", "scdl")
_HTML_PARSERS = ("beautifulsoup4", "cheerio", "html5lib", "jsdom", "lxml", "parsel", "selectolax")
_HTTP_CLIENTS = ("aiohttp", "axios", "cloudscraper", "got", "httpx", "node-fetch", "requests", "urllib3")
_CRAWLERS = ("crawlee", "newspaper3k", "newspaper4k", "scrapy", "trafilatura")
_PAGE_FETCH = re.compile(r"(?:requests|httpx|session|client)\.get\(|urlopen\(|axios\.get\(|fetch\(")
_REGISTRY_QUERY = re.compile(
    r"\b(?:(?:npm|yarn|pnpm|bun|cargo|bundle|composer)\s+(?:outdated|audit)|pip3?\s+list\s+(?:-\w+\s+)*--outdated"
    r"|pip-audit|npm-check-updates|ncu|npm\s+view)\b"
)
_REGISTRY_NEEDLES = ("outdated", "audit", "npm-check-updates", "ncu", "npm view")
"""Every `_REGISTRY_QUERY` holds one of these, at most `_REGISTRY_REACH` characters from its start."""
_REGISTRY_REACH = 80
_REGISTRY_PROGRAMS = frozenset({"npm", "npx", "yarn", "pnpm", "bun", "cargo", "bundle", "composer", "pip", "pip3",
                                "pip-audit", "ncu"})  # fmt: skip
"""The programs of those queries: a skill that runs none of them asks no registry."""
MIN_REGISTRY_QUERIES = 3
"""A workflow that asks a live package registry this many times (what is outdated, what is vulnerable,
which versions exist) is about the registry's answers, which an offline task container cannot get."""


def network_fetch(record: SkillRecord, body: str) -> tuple[str, str] | None:
    """The reason and evidence for a workflow that fetches from the web without a key: the answers of
    a live package registry (`needs:network:package-registry`), a media downloader it runs
    (`needs:network:yt-dlp`), or public web pages it scrapes (an HTTP client and an HTML parser, or a
    crawler: `needs:network:web-pages`). Task containers run offline."""
    where = record.skill_md_file
    bins = record.clawhub.bins + record.clawhub.any_bins if record.clawhub else []
    packages = {dependency.name.lower(): dependency.source for dependency in record.dependencies}
    registry = _registry_queries(body) if _REGISTRY_PROGRAMS.intersection(record.programs) else None
    if registry:
        return "needs:network:package-registry", f"{where}: {registry}"
    for downloader in _DOWNLOADERS:
        if downloader in record.cli_tools or downloader in packages or downloader in bins:
            line = _line_naming(body, downloader)
            proof = f"{where}: {line}" if line else f"{packages.get(downloader, where)}: runs {downloader}"
            return f"needs:network:{downloader}", proof
    if not packages:
        return None
    crawler = next((name for name in _CRAWLERS if name in packages), None)
    parser = next((name for name in _HTML_PARSERS if name in packages), None)
    client = next((name for name in _HTTP_CLIENTS if name in packages), None)
    fetch = _PAGE_FETCH.search(body) if parser and not client else None
    if crawler or (parser and (client or fetch)):
        used = crawler or client or "fetch"
        line = _line_naming(body, fetch.group() if fetch else used)
        proof = f"{where}: {line}" if line else f"{packages.get(used, where)}: {used} with {parser or 'a crawler'}"
        return "needs:network:web-pages", proof
    return None


def _registry_queries(body: str) -> str | None:
    """The first line of `body` that queries a live package registry, when `MIN_REGISTRY_QUERIES` do.

    The query is looked for only around each of its needles (words like "audit" are common, the
    queries rare)."""
    found: dict[int, str] = {}
    for needle in _REGISTRY_NEEDLES:
        at = body.find(needle)
        while at != -1:
            for query in _REGISTRY_QUERY.finditer(body, max(0, at - _REGISTRY_REACH), at + len(needle) + 1):
                found[query.start()] = query.group()
            at = body.find(needle, at + len(needle))
    if len(found) < MIN_REGISTRY_QUERIES:
        return None
    return _line_naming(body, found[min(found)])


def _line_naming(body: str, word: str) -> str | None:
    """The first line of `body` that names `word` (as a word), whitespace-collapsed."""
    for match in re.finditer(re.escape(word), body):
        before = body[match.start() - 1 : match.start()] if match.start() else " "
        after = body[match.end() : match.end() + 1]
        if (before.isalnum() or before in "_-") or (after.isalnum() or after in "_-"):
            continue
        start = body.rfind("\n", 0, match.start()) + 1
        end = body.find("\n", match.start())
        return " ".join(body[start : len(body) if end == -1 else end].split())[:160]
    return None


def live_data_sentence(subject: str) -> str | None:
    """The sentence of `subject` (name, description) that says the skill fetches live outside data:
    a retrieval verb and a live-world cue (latest, daily, REST APIs, listings, a web domain) in the
    same sentence, which does not also say the work is offline or local."""
    lower = subject.lower()
    if not any(map(lower.__contains__, _RETRIEVAL_NEEDLES)):
        return None
    for sentence in _SENTENCE_END.split(_without_urls(subject)):
        if _RETRIEVAL.search(sentence) and _LIVE_CUE.search(sentence) and not _OFFLINE.search(sentence):
            return " ".join(sentence.split())[:200]
    return None


def _failures(record: SkillRecord, subject: str, body: str, signals: list[Signal]) -> tuple[list[str], list[str]]:
    """Fail reasons, in the order money, keys, accounts, services, each with one piece of evidence."""
    found: list[tuple[str, str]] = []
    money = _real_money(subject, signals)
    if money:
        found.append(("needs:real-money", money[0]))
    found += _credentials(record, subject, body, signals)
    found += _accounts(subject, signals, {reason for reason, _ in found})
    if not any(reason.startswith("needs:live-account:") for reason, _ in found):
        personal = [s for s in signals if s.code == "live-account" and _PERSONAL_LOGIN.search(s.excerpt)]
        if personal:
            found.append(("needs:live-account:unnamed", evidence_line(personal[0])))
    found += _external_services(body, signals)
    reasons: list[str] = []
    evidence: list[str] = []
    for reason, proof in found:
        if reason not in reasons:
            reasons.append(reason)
            evidence.append(proof)
    return reasons, evidence


def _counts(signal: Signal, record: SkillRecord) -> bool:
    """SKILL.md and code count as statements of need; prose references do not."""
    return signal.file == record.skill_md_file or signal.file.lower().endswith(_NEED_STATING_SUFFIXES)


def classify_credential(name: str) -> str | None:
    """What a credential-like variable name implies: `paid-api-key`, `live-account:<service>`,
    `real-money`, or None for placeholders, self-made secrets and self-hosted services."""
    upper = name.upper()
    if upper in _GENERIC_NAMES or upper.startswith(_GENERIC_PREFIXES):
        return None
    if upper.endswith(("_PRIVATE_KEY", "_MNEMONIC", "_SEED_PHRASE")) and _WALLET.search(upper):
        return "real-money"
    if upper.startswith(_LOCAL_PREFIXES) or upper.endswith(_LOCAL_SUFFIXES):
        return None
    for service in SERVICES:
        if upper.startswith(service.env_prefixes):
            return f"live-account:{service.slug}"
    if upper.endswith(("_EMAIL", "_CLIENT_ID")):
        return None
    return "paid-api-key"


def _credentials(record: SkillRecord, subject: str, body: str, signals: list[Signal]) -> list[tuple[str, str]]:
    """Keys and credentials the skill needs: ClawHub's `requires.env`, then what SKILL.md and scripts set up."""
    found: list[tuple[str, str]] = []
    required = list(record.clawhub.env) if record.clawhub else []
    if record.clawhub and record.clawhub.primary_env:
        required.append(record.clawhub.primary_env)
    for name in dict.fromkeys(required):
        if _SECRET_WORD.search(name):
            found.extend(_credential_reason(name, f"frontmatter: requires.env {name}"))
    # only an up-front statement speaks for the whole skill; "no auth required" deep in an API
    # reference is about one endpoint
    head = body[:KEYS_OPTIONAL_WITHIN]
    # the body's lower-cased text is at hand: its opening is the opening's, but for final sigmas and the
    # dotted capital I (has_ascii_twins), neither of which changes where an ASCII word is
    if _keys_optional(subject) or _keys_optional(head, lower_text(body)[:KEYS_OPTIONAL_WITHIN]):
        return found
    credentials = [s for s in signals if s.code == "api-credential"]
    for name, signal in _required_variables(credentials, set(record.env_vars)):
        found.extend(_credential_reason(name, evidence_line(signal)))
    if not found and not _SELF_HOSTED.search(subject):
        unnamed = [
            s
            for s in signals
            if s.code in {"api-key-signup", "api-auth-header"}
            and not _says_optional(s.excerpt)
            and not _LOCAL_URL.search(s.excerpt)
        ]
        if unnamed:
            found.append(("needs:paid-api-key:unnamed", evidence_line(unnamed[0])))
    return found


def _keys_optional(text: str, lower: str | None = None) -> bool:
    """Whether `text` says that no key is needed (`_KEYS_OPTIONAL`); `lower` is `text.lower()`."""
    lower = text.lower() if lower is None else lower
    if not mentions_any(text, lower, _KEYS_OPTIONAL_WORDS):
        return False
    return search_from_starts(_KEYS_OPTIONAL, text, _KEYS_OPTIONAL_STARTS, lower) is not None


def _required_variables(credentials: list[Signal], env_vars: set[str]) -> list[tuple[str, Signal]]:
    """Credential variables the skill needs, each with the signal that shows it.

    A variable called optional anywhere is optional everywhere (a table row, then an `export`
    line). Otherwise it is needed when a script reads it from the environment (a constant named
    `DUPLICATE_KEY` in a validator is not a credential), when SKILL.md sets it up (`export`,
    `.env`, "required", "get your key from"), or when SKILL.md names it on two lines; a single
    mention in an example (a guide to writing skills) is not a requirement.
    """
    optional = {name for s in credentials if _says_optional(s.excerpt) for name in CREDENTIAL_NAME.findall(s.excerpt)}
    lines: dict[str, set[tuple[str, int]]] = {}
    setup: dict[str, Signal] = {}
    first: dict[str, Signal] = {}
    for signal in credentials:
        for name in CREDENTIAL_NAME.findall(signal.excerpt):
            if name in optional:
                continue
            in_code = signal.file.lower().endswith(CODE_SUFFIXES)
            first.setdefault(name, signal)
            if not in_code:
                lines.setdefault(name, set()).add((signal.file, signal.line))
            # In code an assignment is a constant, not a setup step: only reading the environment counts.
            if name in env_vars if in_code else _SETUP_LINE.search(signal.excerpt):
                setup.setdefault(name, signal)
    return [(name, setup.get(name, first[name])) for name in first if name in setup or len(lines.get(name, ())) >= 2]


def _credential_reason(name: str, proof: str) -> list[tuple[str, str]]:
    kind = classify_credential(name)
    if kind is None:
        return []
    if kind == "paid-api-key":
        return [(f"needs:paid-api-key:{name}", proof)]
    return [(f"needs:{kind}", proof)]


_NEGATED_BEFORE = re.compile(
    r"\b(?:not|instead\s+of|rather\s+than|other\s+than|except(?:\s+for)?)\s+"
    r"(?:(?:for|to|via|through|with|using|the|a|an|any|your)\s+)*\Z",
    re.IGNORECASE,
)
"""What right before a service's name says the skill is not about it ("not GitHub", "instead of the")."""


def _accounts(subject: str, signals: list[Signal], reasons: set[str]) -> list[tuple[str, str]]:
    """Services the skill is about and acts on through an account (not merely mentions)."""
    auth = [s for s in signals if s.code in {"live-account", "api-credential", "api-key-signup", "api-auth-header"}]
    subject = _without_urls(subject)  # a repository link is not the service the skill is about
    found: list[tuple[str, str]] = []
    lower = subject.lower()
    # the services whose patterns can match: one of their starts is in the subject
    named = (
        None if has_ascii_twins(subject) else set(compress(_SERVICE_INDEXES, map(lower.__contains__, _SERVICE_WORDS)))
    )
    for index, service in enumerate(SERVICES):
        reason = f"needs:live-account:{service.slug}"
        if reason in reasons or (named is not None and index not in named):
            continue
        match = search_from_starts(service.pattern, subject, service.starts, lower)
        while match is not None and _NEGATED_BEFORE.search(subject, max(0, match.start() - 40), match.start()):
            match = service.pattern.search(subject, match.end())  # "not GitHub PR/API operations": another service
        if match is None:
            continue
        context = subject[max(0, match.start() - 40) : match.end() + 40]
        if auth or _ACCOUNT_CONTEXT.search(context):
            proof = evidence_line(auth[0]) if auth else f"{SUBJECT_PATH}: {_first_line(subject)}"
            found.append((reason, proof))
    return found[:3]


def _real_money(subject: str, signals: list[Signal]) -> list[str]:
    """Evidence that the skill moves real money (trades, payments, wallets), unless simulated."""
    money = [s for s in signals if s.code.startswith("real-money")]
    if not money or _SIMULATED.search(subject):
        return []
    strong = [s for s in money if s.code in {"real-money-wallet", "real-money-claim"}]
    subject_money = bool(_MONEY_SUBJECT.search(subject))
    in_subject = [s for s in money if s.file == SUBJECT_PATH]
    if in_subject or (subject_money and (strong or len(money) >= 2)) or len(strong) >= 3:
        return [evidence_line(s) for s in money[:3]]
    return []


def _external_services(body: str, signals: list[Signal]) -> list[tuple[str, str]]:
    """Hosted MCP servers, paid subscriptions and cloud accounts the skill depends on."""
    found: list[tuple[str, str]] = []
    for signal in signals:
        if signal.code == "remote-mcp":
            host = _host(signal.excerpt) or "mcp"
            found.append((f"needs:external-service:{host}", evidence_line(signal)))
        elif signal.code == "subscription-required":
            found.append(("needs:external-service:paid-subscription", evidence_line(signal)))
    lower = lower_text(body)
    # without "cloud" in the text, no needle holding it (`gcloud`, `cloudflare`) is there either
    no_cloud = "cloud" not in lower
    for cloud, needles, cloudless, pattern, starts in _CLOUDS:
        named = any(map(lower.__contains__, cloudless if no_cloud else needles))
        match = search_from_starts(pattern, body, starts, lower) if named else None
        if match:
            found.append((f"needs:external-service:{cloud}", f"SKILL.md: {match.group()}"))
    return found


_REMOTE_MEDIA = re.compile(
    r"https?://[^\s'\"`]+\.(?:mp3|mp4|m4a|wav|flac|ogg|opus|webm|mkv|mov|avi|jpe?g|png|gif|webp|pdf)(?![\w.])",
    re.IGNORECASE,
)


def remote_api_hosts(signals: Iterable[Signal]) -> list[tuple[str, int]]:
    """Remote hosts the skill sends requests to, most used first (local and doc hosts left out).

    A declared base URL or socket, a request a script makes, or a media file or document fetched counts
    `MIN_API_REQUESTS`; another request command in SKILL.md once.
    """
    counts: dict[str, int] = {}
    for signal in signals:
        weight = {"remote-api-base": MIN_API_REQUESTS, "remote-api-call": 1}.get(signal.code)
        if weight and (signal.file.lower().endswith(CODE_SUFFIXES) or _REMOTE_MEDIA.search(signal.excerpt)):
            # a script's request runs whenever the script does; a media file fetched is the input itself
            weight = MIN_API_REQUESTS
        host = _host(signal.excerpt) if weight else None
        if weight and host and "." in host and not _BENIGN_HOST.search(host):
            counts[host] = counts.get(host, 0) + weight
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(host, count) for host, count in ranked if count >= MIN_API_REQUESTS]


def _host(text: str) -> str | None:
    match = _HOST.search(text)
    return match.group(1).lower() if match else None


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:160]
