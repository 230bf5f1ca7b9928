"""World kits: offline procedural authors of Harbor tasks, one per family of worlds.

Each kit (`KITS`, by name) draws a seeded ground-truth world, renders it into workspace files in
realistic formats, builds designed difficulty patterns into it at intensity 1-3, and yields the same
contract as the model author: a Blueprint and a TaskDraft with a reference solver that derives every
deliverable from the workspace. `author_offline` matches a curated skill to its best kit.
"""

from __future__ import annotations

from skill2env.kits.authoring import KitPlan, OfflineAuthor, author_offline, kit_matches, plan_offline
from skill2env.kits.base import Kit, KitMatch
from skill2env.kits.billing import KIT as BILLING
from skill2env.kits.cleanroom import KIT as CLEANROOM
from skill2env.kits.coderepair import KIT as CODEREPAIR
from skill2env.kits.configaudit import KIT as CONFIGAUDIT
from skill2env.kits.diagrams import KIT as DIAGRAMS
from skill2env.kits.gitforensics import KIT as GITFORENSICS
from skill2env.kits.incident import KIT as INCIDENT
from skill2env.kits.labdata import KIT as LABDATA
from skill2env.kits.mediadesk import KIT as MEDIADESK
from skill2env.kits.memory import KIT as MEMORY
from skill2env.kits.records import KIT as RECORDS
from skill2env.kits.research import KIT as RESEARCH
from skill2env.kits.spec import KitError
from skill2env.kits.sqldrift import KIT as SQLDRIFT
from skill2env.kits.textcodes import KIT as TEXTCODES
from skill2env.kits.webapi import KIT as WEBAPI
from skill2env.kits.webfront import KIT as WEBFRONT

KITS: dict[str, Kit] = {
    kit.name: kit
    for kit in (
        BILLING,
        CLEANROOM,
        INCIDENT,
        CONFIGAUDIT,
        SQLDRIFT,
        CODEREPAIR,
        RESEARCH,
        GITFORENSICS,
        MEMORY,
        WEBAPI,
        LABDATA,
        MEDIADESK,
        WEBFRONT,
        RECORDS,
        TEXTCODES,
        DIAGRAMS,
    )
}

__all__ = [
    "KITS",
    "Kit",
    "KitError",
    "KitMatch",
    "KitPlan",
    "OfflineAuthor",
    "author_offline",
    "kit_matches",
    "plan_offline",
]
