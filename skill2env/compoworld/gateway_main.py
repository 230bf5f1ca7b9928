"""The gateway as a program, for running the services inside a sandbox: one meta-tool call per run.

    python3 -m skill2env.compoworld.gateway_main WORLD_FILE REQUEST_FILE

`WORLD_FILE` holds the world: `{"states": {service: state}, "simulations": [SimulationRecord, …]}`
(the task's recorded world-model answers; a simulated call without one fails as it would offline).
`REQUEST_FILE` holds one call: `{"meta_tool": name, "arguments": {…}}`. The program restores the
world, answers the call through `Gateway.dispatch`, writes the world back (atomically, only when
the call changed it) and prints the envelope as JSON on stdout. Exit status 0 whenever an envelope
was printed, tool errors included; anything else is the host's failure, not the agent's.

It imports nothing but the standard library, pydantic and this package's service modules, so it
runs on the bare copy `verify.stage` makes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from skill2env.compoworld.gateway import Gateway
from skill2env.compoworld.world import World
from skill2env.compoworld.world_model import RecordedWorldModel, SimulationRecord


def answer(world_file: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Run one meta-tool call on the world stored in `world_file`; store the world if it changed."""
    document = json.loads(world_file.read_text(encoding="utf-8"))
    records = [SimulationRecord.model_validate(r) for r in document.get("simulations", [])]
    world = World.from_states(document["states"], world_model=RecordedWorldModel(records))
    before = world.states()
    envelope = Gateway(world).dispatch(str(request.get("meta_tool", "")), request.get("arguments") or {})
    after = world.states()
    if after != before:
        partial = world_file.with_name(f".{world_file.name}.partial")
        partial.write_text(json.dumps({**document, "states": after}, ensure_ascii=False), encoding="utf-8")
        partial.replace(world_file)
    return envelope


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 -m skill2env.compoworld.gateway_main WORLD_FILE REQUEST_FILE", file=sys.stderr)
        return 2
    request = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    envelope = answer(Path(argv[0]), request)
    sys.stdout.write(json.dumps(envelope, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
