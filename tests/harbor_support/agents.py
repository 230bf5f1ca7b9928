"""`ShellAgent`: a Harbor agent that runs one shell script in the agent's environment.

`harbor run --agent harbor_support.agents:ShellAgent --ak script=/abs/path.sh [--ak user=root]`:
the script (read on the host) runs with bash in the task's working directory, as the task's agent
user unless `user` says otherwise. Its exit status and output are kept in the trial's
`agent_result.metadata` (`exit_code`, `output`), so a test can tell a script that did what it
meant to do from one that failed. It reads no instruction and calls no model: the tests use it to
play an agent that tampers with the environment instead of doing the task.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

REMOTE_SCRIPT = "/tmp/harbor-shell-agent.sh"


class ShellAgent(BaseAgent):
    def __init__(self, logs_dir: Path, *args: Any, script: str = "", user: str | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(logs_dir, *args, **kwargs)
        if not script:
            raise ValueError("ShellAgent needs --ak script=PATH")
        self._script = Path(script)
        self._user = user

    @staticmethod
    def name() -> str:
        return "skill2env-shell"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment: BaseEnvironment) -> None:
        await environment.upload_file(self._script, REMOTE_SCRIPT)
        await environment.exec(f"chmod 0755 {REMOTE_SCRIPT}", user="root")

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        result = await environment.exec(f"bash {shlex.quote(REMOTE_SCRIPT)} 2>&1", user=self._user)
        output = (result.stdout or "") + (result.stderr or "")
        (self.logs_dir / "shell-agent.txt").write_text(output)
        context.metadata = {"exit_code": result.return_code, "output": output[-4000:]}
