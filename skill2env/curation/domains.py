"""The domain taxonomy and a fast, deterministic keyword classifier.

Every skill gets exactly one domain slug from `DOMAINS` ("other" when nothing fits); slugs are
lowercase letters, digits and hyphens because they become Dagster partition keys.

Classification scores keyword hits in what a skill says about itself, weighted by where they
occur: the name counts most, then the description, then headings, programs and dependencies.
Ties go to the domain listed first, so specific domains are listed before broad ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from skill2env.catalog.models import SkillRecord
from skill2env.catalog.signals import trie_pattern
from skill2env.curation.practical import skill_subject

OTHER = "other"
MIN_SCORE = 2.0
"""A domain needs at least this score (one name hit, or a description hit) to be chosen."""

NAME_WEIGHT = 3.0
DESCRIPTION_WEIGHT = 2.0
HEADING_WEIGHT = 0.5
TOOL_WEIGHT = 1.0
MAX_KEYWORDS_PER_FIELD = 3
_MAX_HEADINGS = 40
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class Domain(BaseModel):
    """One domain of the taxonomy."""

    model_config = ConfigDict(frozen=True)

    slug: str
    title: str
    keywords: tuple[str, ...] = ()
    """Lower-case words or phrases; a trailing `*` matches any word starting so."""
    tools: tuple[str, ...] = ()
    """Programs and package names that point at this domain."""
    cjk: tuple[str, ...] = ()
    """Chinese / Japanese terms, matched as substrings of the name and description."""


def _domain(slug: str, title: str, keywords: str, tools: str = "", cjk: str = "") -> Domain:
    """Keywords are comma-separated (phrases hold spaces); tools and CJK terms space-separated."""
    return Domain(
        slug=slug,
        title=title,
        keywords=tuple(keyword.strip() for keyword in keywords.split(",") if keyword.strip()),
        tools=tuple(tools.split()),
        cjk=tuple(cjk.split()),
    )


DOMAINS: tuple[Domain, ...] = (
    _domain(
        "security",
        "Security & privacy",
        "security, secure, vulnerability, vulnerabilities, pentest*, penetration test*, exploit*, malware, threat*, "
        "cve, owasp, security audit*, secrets, encryption, encrypt*, password*, privacy, prompt injection*, "
        "phishing, firewall*, forensic*, hardening, tamper*, attack*, security scan*, sast, dast, openssl, "
        "bitwarden, 1password, 2fa, totp, manipulation, hack*, audit log*, untrusted, path traversal, zip bomb*, "
        "zip slip, quarantine",
        "nmap semgrep trivy bandit gitleaks trufflehog openssl bw",
        "安全 漏洞 黑客 駭",
    ),
    _domain(
        "crypto-web3",
        "Crypto & Web3",
        "crypto, cryptocurrency, bitcoin, btc, ethereum, eth, solana, blockchain, web3, defi, dex, nft*, token swap*, "
        "crypto wallet*, agent wallet*, smart contract*, solidity, usdc, stablecoin*, onchain, on-chain, "
        "hyperliquid, binance, coinbase, uniswap, lightning network, x402, mainnet, airdrop*, memecoin*",
        "solana cast forge anvil hardhat web3 ethers viem",
        "加密货币 比特币 区块链",
    ),
    _domain(
        "smart-home-iot",
        "Smart home, IoT & hardware",
        "smart home, home assistant, homekit, philips hue, hue lights, smart lights, thermostat*, iot, zigbee, "
        "z-wave, mqtt, sensors, smart device*, raspberry pi, arduino, esp32, gpio, printer*, 3d print*, cameras, "
        "camera, webcam, rtsp, bluetooth, robot*, drone*, tesla, vehicle*, ev charger*, speaker*, sonos, airplay, "
        "homey, dirigera, smartthings, homebridge, mijia, e-ink, trmnl, smart plug*, appliance*, eight sleep, "
        "snapmaker, klipper, lights",
        "openhue homeycli mosquitto camsnap eightctl",
        "智能家居 米家",
    ),
    _domain(
        "health-fitness",
        "Health & fitness",
        "health, fitness, workout*, exercise*, gym, training plan*, cycling, triathlon, marathon, sleep, oura, "
        "garmin, fitbit, whoop, strava, hevy, nutrition, diet, calorie*, meditation, mental health, therapy, "
        "therapeutic, wellness, heart rate, biometric*, healthkit, apple health, medication*, adhd, "
        "growth chart*, mindfulness, body weight, healthcare, clinical data, patient*",
        "",
        "健康 健身 睡眠",
    ),
    _domain(
        "travel-local",
        "Travel, maps & local services",
        "travel, trip*, flight*, hotel*, airbnb, accommodation*, weather, forecast*, maps, route planning, "
        "transit, public transport, train schedule*, trains, rail, departures, journey*, directions, places, "
        "restaurant*, ski, snow, tfl, parcel*, package tracking, track packages, deliveries, shipping, waste, "
        "recycling, geocod*, location*, commute, grocery, groceries, food delivery, swiggy, charging station*",
        "",
        "地图 天气 路线 旅行 出行 高德 Abfuhr",
    ),
    _domain(
        "games-entertainment",
        "Games & entertainment",
        "game, games, gaming, chess, d&d, dnd, dungeon*, rpg, text adventure, quiz game*, trivia, movie*, films, "
        "tv shows, tv, streaming, music, song*, playlist*, spotify, lastfm, last.fm, listening history, xkcd, "
        "comic*, anime, fivem, unity, minecraft, roleplay, role-play, entertainment, jokes, hockey, sports, "
        "football, soccer, radarr, sonarr, overseerr, plex, jellyfin, gamif*",
        "",
        "游戏 修仙 音乐 电影 娱乐",
    ),
    _domain(
        "office-documents",
        "Office documents",
        "docx, word document*, pdf, pdfs, pptx, powerpoint, slides, slide deck*, deck, presentation*, xlsx, excel, "
        "spreadsheet*, invoice*, receipt*, latex, poster*, file conversion, convert files, ocr, office documents, "
        "documentation format*, markdown documents",
        "pandoc libreoffice soffice pdftotext pdfplumber pypdf python-docx python-pptx openpyxl",
        "文档 表格 幻灯片",
    ),
    _domain(
        "databases",
        "Databases & SQL",
        "database*, sql, postgres*, postgresql, mysql, sqlite, duckdb, mongodb, redis, database schema*, "
        "query optimization, indexing, indexes, schema design, orm, vector database*, lancedb, supabase, soql",
        "psql mysql sqlite3 duckdb mongosh redis-cli sqlalchemy prisma",
        "数据库",
    ),
    _domain(
        "agent-memory",
        "Agent memory & self-improvement",
        "memory, memories, remember, recall, self-improvement, self-improving, learn from mistakes, learnings, "
        "reflection, context window, compaction, continuity, long-term memory, knowledge graph*, agent identity, "
        "claude.md, agents.md, subagent*, sub-agent*, skill creator, skill-creator, create skills, writing skills, "
        "skills work, using superpowers, superpowers, heartbeat, proactive agent*, agent behavior, agent workflow*, "
        "parallel agents, multi-agent, orchestrat*, delegate tasks, prompt engineering, prompt optimization, "
        "optimize prompts, improve prompts, self-update, auto-update*, update skills",
        "",
        "记忆",
    ),
    _domain(
        "ml-ai",
        "Machine learning & AI",
        "machine learning, deep learning, neural network*, model training, train models, fine-tun*, finetun*, "
        "llm, llms, embedding*, rag, transformer*, pytorch, tensorflow, keras, jax, scikit-learn, sklearn, "
        "gnn, gnns, graph neural, classifier*, dpo, rlhf, preference optimization, inference, huggingface, "
        "hugging face, whisper, speech-to-text, stt, transcri*, image generation, stable diffusion, gemini, "
        "openai, anthropic, claude api, gpt, shap, interpretability, explainability, recommendation*, recsys, "
        "model evaluation, ai models, gpu, gpus, cuda, dgx, training jobs, ml jobs",
        "torch pytorch tensorflow keras jax transformers scikit-learn sklearn lightning xgboost vllm ollama",
        "人工智能 机器学习",
    ),
    _domain(
        "scientific-computing",
        "Scientific computing",
        "scientific, bioinformatics, genomic*, genome*, protein*, molecul*, chemistry, chemical, drug discovery, "
        "single-cell, rna, dna, sequencing, ngs, chip-seq, atac-seq, biology, biological, physics, quantum, "
        "simulation*, fluid dynamics, cfd, astronomy, neuro*, spike sorting, dicom, pathology, medical imaging, "
        "ecology, climate, multi-objective, pareto, numerical, scanpy, anndata, qiskit, cirq, openmm, "
        "discrete-event, cell*, microscopy",
        "scanpy anndata rdkit biopython pysam deeptools openmm mdanalysis qutip cirq qiskit simpy pymoo pydicom",
        "科学",
    ),
    _domain(
        "research-writing",
        "Research & writing",
        "research, research paper*, papers, literature, citation*, academic, scholar*, scholarly, arxiv, pubmed, "
        "grant*, research proposal*, peer review, critical thinking, hypothes*, scientific claims, writing, "
        "writer, essay*, prose, blog post*, blog, article*, technical writing, technical documentation, editing, "
        "rewrite*, humaniz*, ai writing, summar*, tldr, manuscript*, thesis, venue*, journal*, plans, "
        "implementation plan*, write plans, design doc*, specs, cognitive, scenario analysis, what-if",
        "",
        "研究 论文 写作",
    ),
    _domain(
        "data-analytics",
        "Data analysis & visualization",
        "data analysis, analytics, analyze data, exploratory, eda, statistics, statistical, dataset*, dataframe*, "
        "pandas, polars, vaex, visualization*, visualize, chart*, plot*, dashboard*, kpi*, metrics, etl, "
        "data pipeline*, airflow, spark, time series, causal inference, causal, a/b test*, tabular, parquet, "
        "jupyter, notebook*, csv, json analysis, session replay*, usage patterns",
        "pandas polars numpy scipy matplotlib seaborn plotly vaex pyspark jupyter",
        "数据分析 可视化 统计",
    ),
    _domain(
        "finance-markets",
        "Finance & markets",
        "finance, financial, stock, stocks, equity, equities, invest*, trading, trader, trades, market data, "
        "stock market, portfolio*, valuation, fundamental analysis, earnings, sec filing*, sec edgar, edgar, "
        "fiscal, treasury, budget*, accounting, bookkeeping, expense*, tax, taxes, banking, bank, payments, "
        "payment processing, paypal, stripe, personal finance, net worth, loan*, mortgage, yahoo finance, "
        "yfinance, price target*",
        "yfinance",
        "股票 投资 金融 财经 A股 行情 投資",
    ),
    _domain(
        "media-processing",
        "Media processing",
        "image, images, photo*, video*, audio*, gif*, animated, animation*, ffmpeg, youtube, transcode*, resize, "
        "thumbnail*, screenshot*, tts, text-to-speech, voice, voices, speech, sound*, podcast*, music generation, "
        "generative art, algorithmic art, art, p5.js, canvas, drawing*, diagram*, flowchart*, excalidraw, svg, "
        "midjourney, dall-e, visual art, say command",
        "ffmpeg imagemagick magick sox yt-dlp pillow opencv-python",
        "图片 视频 音频 图像",
    ),
    _domain(
        "design-ui",
        "Design & UI/UX",
        "design system*, ui, ux, ui/ux, user interface*, interfaces, frontend design, visual design, typography, "
        "color palette*, colors, theme, themes, theming, brand guidelines, branding, figma, tailwind, css, "
        "accessibility, wcag, a11y, landing page*, layout*, component librar*, design tokens, "
        "human interface guidelines, hig, aesthetic*, mockup*, wireframe*, web design, design audit*, ux audit*",
        "",
        "设计 界面",
    ),
    _domain(
        "web-automation",
        "Web browsing, scraping & search",
        "browser*, browsing, playwright, puppeteer, selenium, scrap*, crawl*, web search, search the web, "
        "search engine*, serp*, serpapi, headless, web page*, webpage*, extract content, web content, "
        "content extraction, rss, rss feeds, news, headlines, reader, firecrawl, tavily, exa, jina, webhook*, "
        "real-time search, search api, web performance, core web vitals",
        "playwright puppeteer selenium chromium agent-browser firecrawl",
        "浏览器 爬虫 搜索 新闻",
    ),
    _domain(
        "marketing-content",
        "Marketing & content",
        "marketing, seo, content creation, content strategy, copywriting, social media, campaign*, ads, "
        "advertising, google ads, audience, engagement, growth, brand voice, newsletter*, tweet*, twitter, x/twitter, "
        "linkedin, instagram, tiktok, influencer*, jtbd, jobs to be done, conversion*, lead generation, outreach, "
        "press release*, content draft*, viral, trends, trending, publish articles, csdn",
        "",
        "营销 推广 文案 公众号",
    ),
    _domain(
        "communication",
        "Communication & messaging",
        "email*, e-mail, inbox, gmail, outlook, message*, messaging, chat, chats, slack, discord, telegram, "
        "whatsapp, imessage, sms, notification*, notify, internal comms, internal communications, "
        "communications, announcement*, smtp, imap, voice call*, bluebubbles, respond, responses, replies",
        "himalaya mutt",
        "邮件 消息 通知",
    ),
    _domain(
        "productivity",
        "Productivity & personal organization",
        "productivity, todo*, to-do, task manager*, task management, tasks and projects, todoist, ticktick, "
        "notion, obsidian, note-taking, notes app, calendar, schedule*, scheduling, reminder*, planner, "
        "daily plan*, focus, time management, time tracking, project management, project manager, kanban, "
        "linear, jira, trello, asana, youtrack, readwise, highlights, bookmarks, organize, organizer, birthday*, "
        "crm, contacts, personal crm, cloud storage, file storage, backup, backups, password manager*",
        "",
        "任务 日程 提醒 效率",
    ),
    _domain(
        "education",
        "Education & learning",
        "education, educational, learning, learn, tutor*, teach*, teacher, student*, study, studying, exam, exams, "
        "lesson*, course*, flashcard*, language learning, vocabulary, grammar, mandarin, japanese, spanish, "
        "homework, curriculum, school, gaokao, language tutor*, spaced repetition",
        "",
        "教育 学习 辅导 老师 高考 语文 数学 教学 学生",
    ),
    _domain(
        "business-ops",
        "Business operations, legal & compliance",
        "business, operations, startup*, founder*, product manager*, product risk, strategy, legal, contract*, "
        "compliance, gdpr, iso, certification, regulatory, policy, policies, hr, hiring, recruiting, job search, "
        "jobs, sales, salesforce, hubspot, crm data, customer*, procurement, postmortem*, incident review*, okr*, "
        "roadmap*, risk review, quality management, qms, consulting, pricing, commerce, e-commerce, "
        "agentic commerce, shopping, marketplace, listings, domain names, domains, fleet, equipment, competence, "
        "training records, microsoft 365, tenant, freelance, gigs",
        "",
        "商业 法律 合同 合规",
    ),
    _domain(
        "devops-cloud",
        "DevOps, infrastructure & cloud",
        "devops, kubernetes, k8s, docker, containers, helm, terraform, ansible, ci/cd, github actions, deploy, "
        "deployment*, infrastructure, cloud, aws, gcp, azure, servers, server management, vm, vms, proxmox, "
        "hetzner, sysadmin, monitoring, observability, grafana, prometheus, logging, service mesh, linkerd, istio, "
        "nginx, dns, tls, cron, cron jobs, systemd, ssh, ssh tunnel*, tunnel*, ngrok, secrets management, "
        "uptime, sre, pi-hole, pihole, lxc, logs, log analysis, log bundle*, incident*, outage*, on-call, "
        "postmortem*, deploys, rollback*",
        "docker kubectl helm terraform ansible aws gcloud az hcloud systemctl nginx ngrok linkerd istioctl",
        "运维 部署 服务器 云",
    ),
    _domain(
        "software-engineering",
        "Software engineering & code quality",
        "code, coding, software, programming, developer*, development, debug*, bug, bugs, bugfix, test, tests, "
        "testing, tdd, test-driven, unit test*, e2e, refactor*, code review*, pull request*, git, github, gitlab, "
        "branch, branches, commit*, merge, worktree*, api design, rest api*, graphql, sdk, cli tool*, library, "
        "framework, typescript, javascript, python, rust, golang, java, c#, .net, dotnet, swift, kotlin, react, "
        "vue, node, nodejs, fastapi, django, flask, backend, frontend, web app*, webapp*, web artifacts, "
        "microservice*, architecture, design pattern*, mcp, mcp server*, plugin*, extension*, dependency upgrade*, "
        "dependencies, lint*, build, changelog*, release*, specification*, xcode, ios, android, mobile, "
        "pre-commit, hooks, coding agent*, implementation, features, verification",
        "git gh glab npm npx pnpm yarn node pytest jest vitest cargo go make mvn gradle tsc eslint ruff",
        "编程 代码 开发",
    ),
    _domain(OTHER, "Other", ""),
)


def _build_index() -> tuple[
    re.Pattern[str], re.Pattern[str], tuple[str, ...], dict[str, tuple[int, ...]], dict[str, list[int]]
]:
    """One keyword regex over all domains, what each match means, and the tool index.

    The keyword regex comes twice: as specified (`_KEYWORDS`, a lookbehind for the word boundary,
    then the whole keywords, then the prefix keywords; group 1 or 2 is the keyword), and as
    `_KEYWORDS_AFTER_BOUNDARY`, run over the text with a space in front: it starts with a boundary
    character, which the engine finds at C speed rather than trying every offset, then branches
    once on the keyword's first character to that character's whole keywords, then its prefix
    keywords (the match less its first character is the keyword). They find the same keywords
    unless one match can start right where another ends, which takes a keyword ending with a
    non-alphanumeric character (`c#` before `.net`): texts holding one of those (the third value)
    use `_KEYWORDS`.
    """
    exact: dict[str, set[int]] = {}
    prefixes: dict[str, set[int]] = {}
    tools: dict[str, list[int]] = {}
    for index, domain in enumerate(DOMAINS):
        for keyword in domain.keywords:
            target = prefixes if keyword.endswith("*") else exact
            target.setdefault(keyword.rstrip("*"), set()).add(index)
        for tool in domain.tools:
            tools.setdefault(tool.lower(), []).append(index)
    owners: dict[str, tuple[int, ...]] = {}
    for word in exact.keys() | prefixes.keys():
        # a word also counts for every prefix keyword it starts with
        indices = set(exact.get(word, set()))
        for prefix, prefix_owners in prefixes.items():
            if word.startswith(prefix):
                indices |= prefix_owners
        owners[word] = tuple(sorted(indices))
    keywords = rf"(?<![a-z0-9])(?:({trie_pattern(exact)})(?![a-z0-9])|({trie_pattern(prefixes)}))"
    by_first = []
    for first in sorted({word[0] for word in owners}):
        whole = [word[1:] for word in exact if word[0] == first]
        partial = [word[1:] for word in prefixes if word[0] == first]
        choices = [_rest_trie(whole) + "(?![a-z0-9])"] if whole else []
        choices += [_rest_trie(partial)] if partial else []
        by_first.append(re.escape(first) + "(?:" + "|".join(choices) + ")")
    after_boundary = "[^a-z0-9](?:" + "|".join(by_first) + ")"
    open_ended = tuple(sorted(word for word in owners if not word[-1].isascii() or not word[-1].isalnum()))
    return re.compile(keywords), re.compile(after_boundary), open_ended, owners, tools


def _rest_trie(rests: list[str]) -> str:
    """`trie_pattern` of word endings, one of which may be empty (the word is its first character)."""
    longer = [rest for rest in rests if rest]
    if not longer:
        return ""
    return f"(?:{trie_pattern(longer)})?" if "" in rests else trie_pattern(longer)


_KEYWORDS, _KEYWORDS_AFTER_BOUNDARY, _OPEN_ENDED, _OWNERS, _TOOLS = _build_index()
_CJK = tuple((term, index) for index, domain in enumerate(DOMAINS) for term in domain.cjk)
_CJK_ASCII = tuple((term, index) for term, index in _CJK if term.isascii())
_CJK_CHARS = re.compile(
    "["
    + "".join(sorted({re.escape(next(c for c in term if not c.isascii())) for term, _ in _CJK if not term.isascii()}))
    + "]"
)
"""A non-ASCII character of each other term: a text with none of them holds only the ASCII terms."""
# A Markdown heading, `^#{1,6}[ \t]+(.+?)[ \t#]*$` in effect (same matches, same group), written to
# start with a literal `#` found at C speed (the lookbehind puts it at a line start) and with the
# lazy title spelled greedily: the title ends at its last character that is not a space, tab or `#`.
_HEADING = re.compile(r"#(?<![^\n]#)#{0,5}[ \t]+([^\n]*[^ \t#\n]|[^\n])[ \t#]*$", re.MULTILINE)
_HEADINGS_WITHIN = 40_000


def domain_slugs() -> tuple[str, ...]:
    """Every slug of the taxonomy, in order."""
    return tuple(domain.slug for domain in DOMAINS)


def _score_text(scores: list[float], text: str, weight: float) -> None:
    """Add to each domain with keywords in `text`: `weight`, plus half of it per further keyword."""
    if not text:
        return
    normalized = " ".join(text.lower().replace("_", "-").split())
    keywords: dict[int, set[str]] = {}
    if any(map(normalized.__contains__, _OPEN_ENDED)):
        # each match is a whole keyword (group 1) or a prefix keyword (group 2)
        words = {whole or prefix for whole, prefix in _KEYWORDS.findall(normalized)}
    else:
        words = {match[1:] for match in _KEYWORDS_AFTER_BOUNDARY.findall(" " + normalized)}
    for word in words:
        for index in _OWNERS.get(word, ()):
            keywords.setdefault(index, set()).add(word)
    for term, index in _CJK if not text.isascii() and _CJK_CHARS.search(text) else _CJK_ASCII:
        if term in text:
            keywords.setdefault(index, set()).add(term)
    for index, words in keywords.items():
        # distinct keywords count, with diminishing returns: one field cannot swamp the others
        scores[index] += weight * (1 + 0.5 * (min(len(words), MAX_KEYWORDS_PER_FIELD) - 1))


def _score_tools(scores: list[float], names: Iterable[str]) -> None:
    for name in names:
        for index in _TOOLS.get(name.lower(), ()):
            scores[index] += TOOL_WEIGHT


def domain_scores(record: SkillRecord) -> dict[str, float]:
    """Score of every domain for `record` (for inspection and tests)."""
    return {domain.slug: score for domain, score in zip(DOMAINS, _scores(record), strict=True)}


def _scores(record: SkillRecord) -> list[float]:
    """`domain_scores` as a list in the order of `DOMAINS`."""
    scores = [0.0] * len(DOMAINS)
    name = str(record.name or record.frontmatter.get("name") or record.path.rsplit("/", 1)[-1])
    _score_text(scores, name.replace("-", " "), NAME_WEIGHT)
    description = record.description or record.frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        # no frontmatter description: the opening of the body says what the skill is about
        description = skill_subject(record)
    _score_text(scores, description, DESCRIPTION_WEIGHT)
    headings = _HEADING.findall(record.skill_md_text, 0, _HEADINGS_WITHIN)[:_MAX_HEADINGS]
    _score_text(scores, "\n".join(headings), HEADING_WEIGHT)
    _score_tools(scores, record.programs)
    _score_tools(scores, (dependency.name for dependency in record.dependencies))
    return scores


def classify_domain(record: SkillRecord) -> str:
    """The domain slug for `record`: the best-scoring domain, or "other" below `MIN_SCORE`.

    Deterministic (ties go to the domain listed first) and never raises on odd records.
    """
    try:
        scores = _scores(record)
    except (TypeError, ValueError, AttributeError):
        return OTHER
    best_slug, best_score = OTHER, 0.0
    for domain, score in zip(DOMAINS, scores, strict=True):
        if score > best_score:
            best_slug, best_score = domain.slug, score
    return best_slug if best_score >= MIN_SCORE else OTHER


def _check_slugs() -> None:
    for domain in DOMAINS:
        if not _SLUG.match(domain.slug):
            raise ValueError(f"domain slug {domain.slug!r} is not a valid partition key")


_check_slugs()
