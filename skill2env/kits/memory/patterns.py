"""Pattern transformers of the memory kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap's occasion is there,
but the memory store or the first reading happens to be right): likely at intensity 1, less so at
2, never at 3. A harmful trap makes the store (or the first message of the thread) say something
the journal has since overtaken, which is what a reader that trusts the store gets wrong.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from skill2env.kits.memory.docs import CHECKPOINT, CONVENTIONS, INDEX, MEMORY, TEMPLATE
from skill2env.kits.memory.world import CONSOLIDATED, THREAD, Event, Message, World, change, final, state_at
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.75, 2: 0.5, 3: 0.0}
ROLE = {"owner": "owners", "deadline": "deadlines", "decision": "decisions"}
RENAMED = {"owners": "Who owns what", "deadlines": "Dates that matter", "decisions": "Binding decisions",
           "open": "Action items still open", "notes": "Things to remember"}  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def benign(level: int, rng: random.Random) -> bool:
    return rng.random() < BENIGN[level]


def later(world: World, rng: random.Random, prefer: str = "", before_last: bool = False) -> int:
    """A session after the consolidation (in the preferred format when there is one)."""
    sessions = list(range(CONSOLIDATED + 1, world.last if before_last else world.last + 1))
    preferred = [s for s in sessions if world.formats[s] == prefer]
    return rng.choice(preferred or sessions)


def question_number(world: World, kind: str) -> int:
    return next(n for n, q in enumerate(world.questions, 1) if q.kind == kind)


def retroactive_correction(world: World, level: int, rng: random.Random, design: Design) -> None:
    if benign(level, rng):
        subject = rng.choice(world.workstreams)
        value = state_at(world, world.last).deadlines[subject]
        world.events.append(Event(later(world, rng), "confirm_deadline", subject, value))
    else:
        kinds = rng.sample(list(ROLE), 2 if level == 3 else 1)
        for n, kind in enumerate(kinds):
            number = question_number(world, kind)
            subject = world.questions[number - 1].subject
            style = {1: 1, 2: 2, 3: 1 + n}[level]
            first = later(world, rng, "jsonl" if level >= 2 else "md", before_last=level == 3 and n == 0)
            event = change(world, first, kind, style, subject)
            if level == 3 and n == 0:
                event = change(world, world.last, kind, 2, subject)
            world.tag("retroactive_correction", f"answers.q{number}", f"memory.{ROLE[kind]}")
            design.plant("retroactive_correction", f"change.{kind}.{subject}", f"a later session changes the "
                         f"{kind} of {subject}", event.value, world.path(event.session))  # fmt: skip
    design.plant("retroactive_correction", "store.consolidated", "the memory store was consolidated before the "
                 "last sessions", world.days[CONSOLIDATED].isoformat(), MEMORY)  # fmt: skip
    design.forms["retroactive_correction"] = {
        1: "After the store's consolidation a daily note changes an owner, a deadline or a decision.",
        2: "As level 1, the change said in passing in a session transcript.",
        3: "Two of them change after the consolidation, one of them twice (the later change governs).",
    }[level]


def pending_item_closure(world: World, level: int, rng: random.Random, design: Design) -> None:
    state = state_at(world, CONSOLIDATED)
    opened = sorted(state.open)
    closed = sorted(a.id for a in world.actions if a.id not in state.open)
    if benign(level, rng):
        world.events.append(Event(later(world, rng), "confirm_action", rng.choice(opened)))
    else:
        target = rng.choice(opened)
        if level == 1:
            world.events.append(Event(later(world, rng), "close", target, style=1))
        else:
            world.events.append(Event(later(world, rng), "close_implicit", target, rng.choice(WEEKDAYS)))
        if level == 3:
            reopened = rng.choice(closed)
            world.events.append(Event(later(world, rng), "reopen", reopened))
        world.tag("pending_item_closure", "answers.q4", "memory.open")
        design.plant("pending_item_closure", f"closure.{target}", "an open action item is closed in a later session",
                     target, "journal/")  # fmt: skip
    design.forms["pending_item_closure"] = {
        1: "An action item the store lists as open is closed by id in a later session.",
        2: "The closure is only in prose: the session says the item's work was finished, without its id.",
        3: "As level 2, and an item closed before the consolidation is reopened afterwards.",
    }[level]


def authority_resolution(world: World, level: int, rng: random.Random, design: Design) -> None:
    topics = [world.questions[question_number(world, "decision") - 1].subject]
    topics += [rng.choice([t for t in world.topics if t != topics[0]])] if level == 3 else []
    fooled = not benign(level, rng)
    for topic in topics:
        # after the topic's last real change, so that the consolidation's misreading is what it keeps
        since = state_at(world, CONSOLIDATED).sources[f"decisions/{topic}"]
        session = rng.randint(max(since, 1), CONSOLIDATED - 1)
        current = state_at(world, session).decisions[topic]
        value = rng.choice([c for c in world.options(topic) if c != current])
        world.events.append(Event(session, "proposal", topic, value, style=0 if level == 1 else 1))
        if fooled:
            world.misread[f"decisions/{topic}"] = (value, session)
            world.tag("authority_resolution", "memory.decisions")
            if topic == topics[0]:
                world.tag("authority_resolution", f"answers.q{question_number(world, 'decision')}")
            design.plant("authority_resolution", f"proposal.{topic}", "the store took a proposal for a decision",
                         value, world.path(session))  # fmt: skip
    design.plant("authority_resolution", "conventions.binding", "only decisions recorded as taken bind",
                 "binds nothing", CONVENTIONS)  # fmt: skip
    design.forms["authority_resolution"] = {
        1: "A proposal in a daily note (marked as not decided) was copied into the store as the decision; the "
        "conventions say only decisions taken bind.",
        2: "As level 1, the proposal phrased as a question in a session transcript.",
        3: "As level 2, on two decisions.",
    }[level]


def stale_search_index(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.index_at = CONSOLIDATED - 1
    world.index_dated = level == 1
    if benign(level, rng):
        kind = rng.choice(list(ROLE))
        asked = world.questions[question_number(world, kind) - 1].subject
        pool = world.topics if kind == "decision" else world.workstreams
        change(world, CONSOLIDATED, kind, 1, rng.choice([s for s in pool if s != asked]))
    else:
        for kind in rng.sample(list(ROLE), 2 if level == 3 else 1):
            number = question_number(world, kind)
            event = change(world, CONSOLIDATED, kind, 1, world.questions[number - 1].subject)
            world.tag("stale_search_index", f"answers.q{number}")
            design.plant("stale_search_index", f"index.{kind}", "the index predates a change the store holds",
                         event.value, world.path(event.session))  # fmt: skip
    design.plant("stale_search_index", "index.built", "the index was built before the last consolidation",
                 world.days[world.index_at].isoformat(), INDEX)  # fmt: skip
    design.forms["stale_search_index"] = {
        1: "The memory index was built a session before the store's consolidation and misses a change (its "
        "build date is in the index).",
        2: "As level 1, the index without a build date (only per-entry dates).",
        3: "As level 2, with two asked values stale in the index.",
    }[level]


def idempotent_resume(world: World, level: int, rng: random.Random, design: Design) -> None:
    resumed = world.days[CONSOLIDATED + 1].isoformat()
    if benign(level, rng):
        world.checkpoint = {"status": "interrupted", "applied_through": world.days[CONSOLIDATED].isoformat(),
                            "applying": resumed, "written": "nothing"}  # fmt: skip
    else:
        for n, kind in enumerate(rng.sample(list(ROLE), 2 if level == 3 else 1)):
            pool = world.topics if kind == "decision" else world.workstreams
            subject = rng.choice(pool)
            change(world, CONSOLIDATED + 1, kind, 1, subject)
            world.half_applied.append((ROLE[kind], subject, CONSOLIDATED + 1))
            if level == 3 and n == 0:
                change(world, world.last, kind, 2, subject)
            world.tag("idempotent_resume", f"memory.{ROLE[kind]}")
            design.plant("idempotent_resume", f"half-applied.{kind}.{subject}", "an interrupted consolidation "
                         "appended a new entry and left the old one", subject, MEMORY)  # fmt: skip
        world.checkpoint = (
            {"status": "interrupted", "applied_through": world.days[CONSOLIDATED].isoformat(), "applying": resumed}
            if level == 1
            else {"status": "running", "applied_through": world.days[CONSOLIDATED - 1].isoformat()}
        )
    design.plant("idempotent_resume", "checkpoint.status", "the consolidation run's marker", world.checkpoint["status"],
                 CHECKPOINT)  # fmt: skip
    design.forms["idempotent_resume"] = {
        1: "A consolidation run was interrupted after appending one new entry to the memory file, its old entry "
        "still there; the marker says where it stopped.",
        2: "As level 1, the marker lagging behind what was written and still saying the run is going.",
        3: "As level 2, two entries half-applied, one of them changed again in a later session.",
    }[level]


def skill_output_convention(world: World, level: int, rng: random.Random, design: Design) -> None:
    if not benign(level, rng):
        world.store_names = True
        world.store_dates = level >= 2
        world.store_labels = level == 3
        world.tag("skill_output_convention", "answers.q1", "memory.owners", "memory.open")
        if level >= 2:
            world.tag("skill_output_convention", "answers.q2", "memory.deadlines")
        if level == 3:
            world.tag("skill_output_convention", "answers.q3", "memory.decisions")
    design.plant("skill_output_convention", "conventions.forms", "the conventions fix how values are written",
                 "YYYY-MM-DD", CONVENTIONS)  # fmt: skip
    design.forms["skill_output_convention"] = {
        1: "The store writes owners by full name; the conventions want handles.",
        2: "As level 1, and dates written out in words; the conventions want YYYY-MM-DD.",
        3: "As level 2, and decisions by label; the conventions want the option's code.",
    }[level]


def skill_template_as_is(world: World, level: int, rng: random.Random, design: Design) -> None:
    if not benign(level, rng):
        current = [role for role, _ in world.layout if role != "superseded"]
        order = list(current)
        while order == current:
            rng.shuffle(order)
        renamed = set(rng.sample(order, {1: 0, 2: 1, 3: 2}[level]))
        rank = [*order, "superseded"]
        layout = sorted(world.layout, key=lambda section: rank.index(section[0]))
        world.template = [(role, RENAMED[role] if role in renamed else heading) for role, heading in layout]
        world.front_matter = level == 3
        world.template_date = (world.days[CONSOLIDATED] + timedelta(days=1)).isoformat()
        world.tag("skill_template_as_is", "memory.structure")
    design.plant("skill_template_as_is", "template.layout", "the memory file's template", "headings", TEMPLATE)
    design.forms["skill_template_as_is"] = {
        1: "The template was revised after the consolidation: the sections come in another order.",
        2: "As level 1, and one section has a new heading.",
        3: "As level 2, two headings renamed and the consolidation date moved into front matter.",
    }[level]


def scattered_edit_checklist(world: World, level: int, rng: random.Random, design: Design) -> None:
    day, request = world.days[-1], world.last + 1
    if benign(level, rng):
        world.thread.append(Message(world.requester, day, "The standing notes in the memory look right to me."))
    else:
        kept = [key for key in world.notes if key in state_at(world, CONSOLIDATED).notes]
        new = [key for key in world.notes if key not in kept]
        key = new[0]
        value = rng.choice(world.note_values(key))
        world.thread.append(Message(world.requester, day, f"Please also remember that the {key} is {value}."))
        world.events.append(Event(request, "note", key, value))
        design.plant(
            "scattered_edit_checklist", f"note.{key}", "the thread asks the memory to keep a note", key, THREAD
        )
        if level >= 2:
            key = new[1]
            session = later(world, rng, "jsonl")
            world.events.append(Event(session, "note", key, rng.choice(world.note_values(key)), style=1))
            design.plant("scattered_edit_checklist", f"note.{key}", "a session asks the memory to keep a note", key,
                         world.path(session))  # fmt: skip
        if level == 3:
            key = rng.choice(kept)
            world.thread.append(Message(world.requester, day, f"Forget what I said about the {key}: it no longer "
                                        "applies."))  # fmt: skip
            world.events.append(Event(request, "forget", key))
            design.plant("scattered_edit_checklist", f"forget.{key}", "the thread withdraws a note", key, THREAD)
        world.tag("scattered_edit_checklist", "memory.notes")
    design.forms["scattered_edit_checklist"] = {
        1: "A later message in the thread asks the memory to keep one more standing note.",
        2: "As level 1, and a session transcript after the consolidation asks for another.",
        3: "As level 2, and the thread withdraws a note the memory holds.",
    }[level]


def goal_buried_in_thread(world: World, level: int, rng: random.Random, design: Design) -> None:
    day = world.days[-1]
    if benign(level, rng):
        n = rng.randint(1, 3)
        world.thread.append(Message(world.requester, day, f"Thanks in advance. Question {n} matters most to me."))
    else:
        truth = final(world)
        values = {"owner": truth.owners, "deadline": truth.deadlines, "decision": truth.decisions}
        numbers = rng.sample([1, 2, 3], 2 if level == 3 else 1)
        if level >= 2:
            other = rng.choice([1, 2, 3])
            noise = rng.choice(world.topics if world.questions[other - 1].kind == "decision" else world.workstreams)
            world.thread.append(Message(world.colleague, day, f"Could question {other} cover {noise} instead?"))
        for number in numbers:
            question = world.questions[number - 1]
            current = values[question.kind]
            candidates = [s for s in current if s != question.subject and current[s] != current[question.subject]]
            if not candidates:
                continue
            subject = rng.choice(candidates)
            text = (
                f"Question {number}: make that {subject} instead of {question.subject}."
                if level == 1
                else f"One correction. For question {number}, please switch to {subject}."
            )
            world.thread.append(Message(world.requester, day, text))
            world.revisions.append((number, subject))
            world.tag("goal_buried_in_thread", f"answers.q{number}")
            design.plant("goal_buried_in_thread", f"revision.q{number}", "a later message changes a question",
                         subject, THREAD)  # fmt: skip
    design.plant("goal_buried_in_thread", "thread.requester", "the requester's questions", world.requester.name, THREAD)
    design.forms["goal_buried_in_thread"] = {
        1: "A later message from the requester changes what one question asks about.",
        2: "As level 1, phrased in passing, after a colleague's suggestion the requester never takes up.",
        3: "Two questions are changed in later messages, with the colleague's suggestion among them.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "authority_resolution": authority_resolution,
    "stale_search_index": stale_search_index,
    "retroactive_correction": retroactive_correction,
    "pending_item_closure": pending_item_closure,
    "idempotent_resume": idempotent_resume,
    "skill_output_convention": skill_output_convention,
    "skill_template_as_is": skill_template_as_is,
    "scattered_edit_checklist": scattered_edit_checklist,
    "goal_buried_in_thread": goal_buried_in_thread,
}
PATTERNS = tuple(TRANSFORMERS)
