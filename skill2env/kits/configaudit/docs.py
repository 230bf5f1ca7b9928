"""Render the configuration-audit world: the repository's YAML / JSON / TOML / env files and archives,
the policy as HTML (struck-through text carries meaning), its updates, exceptions, approvals and waivers."""

from __future__ import annotations

import html

from skill2env.kits import render as r
from skill2env.kits.configaudit.world import Config, World
from skill2env.kits.spec import Workspace

RULE_TEXT = {
    "R1": "Every <code>uses:</code> reference in a workflow pins a full 40-character commit SHA; local actions "
    "(<code>./…</code>) are exempt.",
    "R2": "Every workflow sets top-level <code>permissions:</code>, and never <code>write-all</code>.",
    "R3": "A production service configuration (<code>environment: production</code>) does not enable debug, "
    "whichever configuration layer sets it.",
    "R4": "The TLS minimum version of a service's settings is at least {r4}.",
    "R5": "The timeout of a deploy file is at most {r5} seconds.",
    "R6": "Keys named password, token or secret (or ending in _password, _token or _secret) hold a "
    "<code>${{…}}</code> reference, never a literal value.",
    "R7": "Workflow jobs follow the conventions that all other workflow jobs of this repository share.",
}


def archive_bytes(name: str, members: list[tuple[str, Config]]) -> tuple[bytes, str]:
    """An archive (zip / tar.gz) of rendered configs; `inner.tar.gz!/file` members nest an archive."""
    flat: dict[str, bytes] = {}
    nested: dict[str, list[tuple[str, Config]]] = {}
    texts = []
    for member, config in members:
        if "!/" in member:
            inner, rest = member.split("!/", 1)
            nested.setdefault(inner, []).append((rest, config))
        else:
            text = config.render().text
            flat[member] = text.encode()
            texts.append(text)
    for inner, items in nested.items():
        data, text = archive_bytes(inner, items)
        flat[inner] = data
        texts.append(text)
    data = r.zip_bytes(flat) if name.endswith(".zip") else r.tar_gz_bytes(flat)
    return data, "\n".join(texts)


def render_world(world: World) -> Workspace:
    ws = Workspace()
    for config in world.files:
        ws.add_text(config.path, config.render().text)
    for name, members in world.archives.items():
        data, text = archive_bytes(name, members)
        ws.add(name, data, text)
    ws.add_text("docs/policy.html", policy(world).decode())
    ws.add_text(
        "docs/config-schema.md",
        "# Configuration schemas\n\n- `settings.json` schema 2 "
        '(`"schema_version": 2`) nests the TLS minimum under `tls.min_version` and the API token under '
        "`auth.token`.\n- Deploy files with `schema = 2` write the timeout as `timeout`, a duration string "
        'such as `"45s"`.\n',
    )
    ws.add_text("policy/audit.yaml", f"audit_date: {world.audit.isoformat()}\n")
    lines = ["exceptions:"]
    for exception in world.exceptions:
        lines += [
            f"  - id: {exception.id}",
            f"    rule: {exception.rule}",
            f"    file: {exception.file}",
            f"    approval: {exception.approval}",
            f"    expires: {exception.expires.isoformat()}",
        ]
    ws.add_text("policy/exceptions.yaml", "\n".join(lines) + "\n")
    for approval, (rule, file) in world.approvals.items():
        ws.add_text(
            f"policy/approvals/{approval}.md",
            f"# Approval {approval}\n\nApproves: {rule} for `{file}`.\nApproved by the platform architecture board.\n",
        )
    for update in world.updates:
        status = "Status: draft, not approved.\n\n" if update.draft else ""
        limit = f"at most {update.value} seconds" if update.rule == "R5" else f"at least {update.value}"
        ws.add_text(
            update.file,
            f"# Update to rule {update.rule}\n\n{status}Effective {update.effective.isoformat()}: "
            f"the limit of rule {update.rule} is {limit}.\n",
        )
    if world.waivers:
        lines = ["# Waivers", ""]
        lines += [
            f"- Waiver {wid}: rule {rule} is waived for `{path}` until {until.isoformat()}."
            for wid, rule, path, until in world.waivers
        ]
        ws.add_text("policy/waivers.md", "\n".join(lines) + "\n")
    if world.owners:
        lines = ["# Code owners", "", f"* {world.team}"]
        lines += [f"/{prefix} {team}" for prefix, team in sorted(world.owners.items())]
        ws.add_text(".github/CODEOWNERS", "\n".join(lines) + "\n")
    ws.add_text("README.md", readme(world))
    return ws


def policy(world: World) -> bytes:
    strike = int(world.render.get("strike", 0))
    blocks = [
        r.html_paragraph(
            "This policy applies to the configuration files of this repository (workflows, service "
            "configurations, settings, deploy files and the bundles that carry them)."
        ),
        "<p>Out of scope: <code>vendor/</code>, <code>third_party/</code> and <code>examples/</code>.</p>",
    ]
    if world.owners:
        blocks.append(
            f"<p>The policy applies only to files that <code>.github/CODEOWNERS</code> assigns to "
            f"{html.escape(world.team)}.</p>"
        )
    if strike and not world.withdrawn:
        blocks.append("<p><del>Draft wording under review was removed.</del></p>")
    rules = [rule for rule in ("R1", "R2", "R3", "R4", "R5", "R6", "R7") if rule != "R7" or world.implicit]
    for rule in rules:
        text = RULE_TEXT[rule].format(r4=world.r4, r5=world.r5)
        if world.struck and world.struck[0] == rule:
            old, new = world.struck[1], world.struck[2]
            text = text.replace(f"at least {old}", f"at least <del>{old}</del> {new}")
        paragraph = f"<strong>{rule}</strong>: {text}"
        blocks.append(f"<p><del>{paragraph}</del></p>" if rule in world.withdrawn else f"<p>{paragraph}</p>")
    blocks.append(
        "<p>Exceptions are listed in <code>policy/exceptions.yaml</code>. An exception applies only when "
        "its approval record <code>policy/approvals/&lt;approval&gt;.md</code> approves the same rule for "
        "the same file, and only until it expires.</p>"
    )
    if world.updates:
        blocks.append(
            "<p>Updates published in <code>policy/updates/</code> replace the limit of the rule they name "
            "from their effective date; drafts have no force.</p>"
        )
    if world.waivers:
        blocks.append(
            "<p>Waivers in <code>policy/waivers.md</code> suspend a rule for one file until their end date.</p>"
        )
    if strike == 1:
        blocks.append(r.html_paragraph("Struck-through rules are withdrawn."))
    return r.html_page("Configuration policy", blocks)


def readme(world: World) -> str:
    lines = [
        "# Platform configuration repository",
        "",
        "- `.github/workflows/`: CI workflows",
        "- `services/<service>/`: service configurations (`config.yaml`) and settings (`settings.json`)",
        "- `deploy/`: deploy files, and bundles of them",
        "- `docs/policy.html`: the configuration policy; `policy/`: its exceptions, approvals and audit schedule",
        "",
        "A service's `config.override.yaml` overrides keys of its `config.yaml`; `APP_DEBUG` in the service's `.env` "
        "overrides both.",
    ]
    if int(world.render.get("strike", 0)) >= 2:
        lines += ["", "In the policy, withdrawn text is kept but struck through."]
    return "\n".join(lines) + "\n"
