"""Harbor plug-ins for running exported tasks on this machine's engine (imported by Harbor itself).

These modules run inside `.harbor-venv` (Python 3.12, `harbor==0.25.0`), loaded through Harbor's
import-path options with `tests/` on PYTHONPATH; the project's own venv never imports them.

* `environment.LocalComposeEnvironment`: Harbor's docker environment on Compose v1
  (`docker-compose`), with `network_mode = "no-network"` as compose `network_mode: none`.
* `agents.ShellAgent`: an agent that runs one shell script in the agent's container.

Running a task (what `tests/harbor_client.py` does):

    PYTHONPATH=tests LITELLM_LOCAL_MODEL_COST_MAP=True .harbor-venv/bin/harbor run \\
        -p TASK_DIR -a oracle -e harbor_support.environment:LocalComposeEnvironment \\
        -o JOBS_DIR --job-name NAME -n 1 -y -q

`-p` takes one task directory, or a folder of task directories; several chosen ones go in a job
config instead (`-c config.json` with `{"tasks": [{"path": ...}, ...]}`; the CLI options add to
it). `-a` takes an agent name (`oracle` runs `solution/solve.sh`) or an import path, with
`--ak key=value` for its constructor. `-y` answers Harbor's prompts, `-q` drops the progress display.
LiteLLM, which Harbor imports, otherwise spends seconds failing to download its cost map.

The job lands in `JOBS_DIR/NAME/`: `result.json` (the job's counts and mean), and one folder per
trial (`<task folder>__<random>/`) holding the trial's own `result.json`, where `task_name` is
`[task].name`, `verifier_result.rewards.reward` the reward, and `exception_info` (type, message,
traceback) is set when the trial failed (a verifier that writes no reward file is a
`RewardFileNotFoundError` there, with `verifier_result` null); beside it
`verifier/reward.json` and `test-stdout.txt` from the verifier container, `agent/` (the oracle's
`oracle.txt`), `artifacts/workspace/` (the collected `/workspace`) and `trial.log`.

In separate verifier mode each trial builds two images with compose, the agent's from
`environment/` and the verifier's from `tests/` (its Dockerfile bakes the tests in), runs the agent,
downloads the `/workspace` artifact with `docker cp`, uploads it into the verifier's container and
runs `tests/test.sh` there. About a minute per kit task on two busy cores.

`harbor lint --json DIR...` prints a JSON array of findings (`[]` when clean) and exits 1 on any;
`harbor.models.task.task.Task(path)` loads a task as Harbor does (`Task.is_valid_dir(path)` too).
"""
