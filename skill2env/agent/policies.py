"""Policies the pipeline rolls out: a named one, or the naive baseline (offline): each world kit's
naive solver on its tasks, the shallow solver (`agent.shallow`) on any other task."""

from __future__ import annotations

from skill2env.agent.actors import POLICY_SCRIPT, Actor, Policy, ScriptActor, policy_from_name
from skill2env.agent.shallow import shallow_deliverables
from skill2env.agent.tools import MAX_COMMAND_TIMEOUT_S
from skill2env.llm import ModelClient
from skill2env.sandbox import TaskDir

NAIVE = "naive"
OFFLINE_AUTHOR_PREFIX = "offline:"


class NaivePolicy(Policy):
    """The scripted solver that does the obvious thing and ignores the designed challenges (each
    kit ships one; a task no kit serves gets the shallow solver, which writes the deliverables in
    their formats without analysing anything). It measures, offline, that hardening makes tasks
    harder: it is labelled as a scripted policy everywhere, never mistaken for a model, and its
    rollouts go to the same tables whichever baseline ran."""

    name = f"script:{NAIVE}"
    model = None

    def actor(self, task: TaskDir) -> Actor:
        from skill2env.kits import KITS

        author = task.author or ""
        kit = KITS.get(author.removeprefix(OFFLINE_AUTHOR_PREFIX)) if author.startswith(OFFLINE_AUTHOR_PREFIX) else None
        if kit is None:
            return shallow_actor(task)
        timeout = min(task.agent_timeout_sec, MAX_COMMAND_TIMEOUT_S)
        run = ("bash", {"command": f"bash {POLICY_SCRIPT}", "timeout": timeout})
        return ScriptActor([[run], [("finish", {"message": f"naive baseline of {kit.name}"})]],
                           files={POLICY_SCRIPT: kit.naive_policy()})  # fmt: skip


def shallow_actor(task: TaskDir) -> Actor:
    """The shallow solver's turns: look at the workspace, write every deliverable, finish."""
    files = shallow_deliverables(task)
    writes = [("write_file", {"path": f.path, "content": f.content}) for f in files]
    look = ("list_dir", {"path": "."})
    summary = f"shallow baseline: wrote {len(files)} deliverable(s) in their formats, nothing analysed"
    return ScriptActor([[look], *([writes] if writes else []), [("finish", {"message": summary})]])


def pipeline_policy(name: str, client: ModelClient | None, *, partial_fraction: float = 0.5) -> Policy:
    """`naive` (the kits' baselines) or any name `policy_from_name` knows.

    Raises:
        ValueError: see `policy_from_name`.
    """
    return NaivePolicy() if name == NAIVE else policy_from_name(name, client=client, fraction=partial_fraction)
