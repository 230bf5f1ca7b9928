"""The lake's public views at scale: synthetic content in a fresh lake, then every view timed.

    python benchmarks/lake.py [--tasks 100000] [--scores 1000000] [--steps 2000000] [--runs 3] [--lake PATH]

Generates, with DuckDB in memory, every table the views read — 25 domains, three hardening iterations,
by default 100K task versions (33K families), 1M rubric score rows (80K rollouts: 4 attempts per task
of 6.7K families, 10–15 items each), 2M trajectory steps (25 per rollout on average), and in
proportion: 50K skills (250K files, 33K curated), 167K pattern selections, 100K blueprints, 600K task
files, 500K validations, 67K hardening rounds, the SFT examples (reward > 0.9), 200K model calls,
the rollout attempt log and a CompoWorld (13 services, 92 tools, 3,112 edges, 1,000 tasks) — and
writes it through `Lake.write` / `Lake.append`, one partition per (domain, iteration) as the
pipeline does, so the versioning columns and the materializations register are the real ones. Two
domains' partitions (and a tenth of the unpartitioned tables) are written twice, an earlier run first:
history the views must skip.

Then times each public view — `SELECT count(*)` and a typical filtered query — plus the export
queries, each on a fresh connection as `skill2env sql` runs them (lock, connect, query, close),
median of `--runs`, and prints them against the goal of 0.5 s.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from skill2env.agent.tables import ROLLOUT_ATTEMPTS_SCHEMA, ROLLOUTS_SCHEMA, TRAJECTORY_STEPS_SCHEMA
from skill2env.catalog.tables import SKILL_FILES_SCHEMA, SKILLS_SCHEMA
from skill2env.compoworld.rollout_tables import COMPO_ROLLOUTS_SCHEMA
from skill2env.compoworld.sft import COMPO_SFT_SCHEMA
from skill2env.compoworld.tables import (
    COMPO_TASKS_SCHEMA,
    EDGES_SCHEMA,
    SERVICE_TOOLS_SCHEMA,
    SERVICES_SCHEMA,
    SIMULATED_CALLS_SCHEMA,
)
from skill2env.curation.domains import domain_slugs
from skill2env.curation.tables import CURATED_SKILLS_SCHEMA
from skill2env.exports.sft import SFT_EXAMPLES_SCHEMA
from skill2env.hardening.stage import HARDENING_ROUNDS_SCHEMA
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import SQL_DIR, load_sql
from skill2env.llm.ledger import LLM_CALLS_SCHEMA
from skill2env.patterns.tables import PATTERN_ADDITIONS_SCHEMA, PATTERN_LIBRARY_SCHEMA, PATTERN_SELECTIONS_SCHEMA
from skill2env.rubric.tables import RUBRIC_SCORES_SCHEMA
from skill2env.tasks.tables import BLUEPRINTS_SCHEMA, TASK_FILES_SCHEMA, TASKS_SCHEMA
from skill2env.validation.classification import FAILURE_CLASSIFICATIONS_SCHEMA
from skill2env.validation.tables import VALIDATIONS_SCHEMA

GOAL_S = 0.5
ITERATIONS = 3
ATTEMPTS = 4
MEAN_STEPS = 25
FULL_CREDIT = (0.484, 0.248, 0.154)
"""Share of attempts with full credit per iteration (the paper's), the rest pass 60 % of their items."""
STALE_DOMAINS = 2
CAPABILITIES = ("environment_understanding", "planning", "skill_use", "long_horizon_consistency", "error_recovery")
COMPO_DOMAINS = ("commerce", "office", "communication", "operations")
PROGRAMS = 101
CLI_TOOLS = 823
DEPENDENCIES = 4242
COMPO_TASKS = 1000
ECOSYSTEMS = ("pypi", "npm", "cargo", "go", "gem", "maven", "apt", "brew")


@dataclass(frozen=True)
class Scale:
    tasks: int
    scores: int
    steps: int

    @property
    def families(self) -> int:
        return -(-self.tasks // ITERATIONS)

    @property
    def skills(self) -> int:
        return self.families * 3 // 2

    @property
    def rollouts(self) -> int:
        return self.steps // MEAN_STEPS

    @property
    def rolled_families(self) -> int:
        return max(1, self.rollouts // (ITERATIONS * ATTEMPTS))

    @property
    def min_items(self) -> int:
        """Items per rubric are min_items..min_items + 5, so the mean hits the score rows wanted."""
        return max(1, round(self.scores / (self.rolled_families * ITERATIONS * ATTEMPTS) - 2.5))


# -- generation: one SQL statement per table, over helper tables of families, versions and rollouts ----

HELPERS = {
    "fam": """
        SELECT f, names[f % 25 + 1] AS domain, f < $rolled AS rolled, 'task-' || lpad(f::VARCHAR, 6, '0') AS task_name,
               md5('skill' || f) AS skill_id, 'src' || (f % 40) || '/skill-' || f AS skill_path
        FROM range($families) AS t(f) CROSS JOIN dom""",
    "ver": """
        SELECT fam.*, k, task_name || '-i' || k AS task_id,
               md5('task' || f || '-' || k) || md5('digest' || f || '-' || k) AS task_digest,
               md5('bp' || f || '-' || k) AS blueprint_digest,
               CASE WHEN rolled OR hash(f, k) % 100 >= 3 THEN 'built' ELSE 'rejected' END AS status,
               rolled OR (hash(f, k) % 100 >= 3 AND hash(f, k, 'v') % 100 < 92) AS accepted,
               CASE WHEN k = 0 THEN domain ELSE domain || '@i' || k END AS task_partition,
               domain || '@i' || k AS stage_partition,
               ($min_items + hash(f, k, 'n') % 6)::BIGINT AS n_items
        FROM fam, range(3) AS t(k)""",
    "ro": """
        SELECT v.f, v.k, v.domain, v.task_id, v.task_name, v.task_digest, v.stage_partition, v.n_items, a AS attempt,
               'r-' || v.f || '-' || v.k || '-' || a AS rollout_id, (hash(v.f, v.k, a) % 1000000007)::BIGINT AS h,
               CASE WHEN h % 100 = 0 THEN 'infra_error' WHEN h % 100 < 4 THEN 'max_turns' ELSE 'completed' END
                   AS status,
               $turns_lo + (h // 7) % 21 AS turns,
               (h // 1000) % 1000 < [484, 248, 154][v.k + 1] AS full_marks
        FROM ver AS v, range(1, 5) AS t(a)
        WHERE v.rolled""",
    "sc": """
        WITH items AS (SELECT r.*, unnest(range(r.n_items)) AS i FROM ro AS r WHERE r.status <> 'infra_error'),
        scored AS (
            SELECT *, 1.0 / n_items AS weight,
                   CASE WHEN full_marks OR hash(rollout_id, i) % 100 < 60 THEN 1.0 ELSE 0.0 END AS q
            FROM items
        )
        SELECT *, sum(q * weight) OVER (PARTITION BY rollout_id) AS reward FROM scored""",
    "cro": """
        SELECT c, a AS attempt, compo[c % 4 + 1] AS domain, md5('compo' || c) AS task_id,
               'cr-' || c || '-' || a AS rollout_id,
               CASE WHEN (c + a) % 50 = 0 THEN 'infra_error' ELSE 'completed' END AS status,
               CASE WHEN (c + a) % 50 <> 0 THEN least(1.0, ((c * 7 + a * 13) % 13) / 10.0) END AS reward
        FROM range($compo_tasks) AS t(c), range(1, 5) AS g(a), dom""",
}

TABLES: dict[str, tuple[pl.Schema, str]] = {
    "skills": (
        SKILLS_SCHEMA,
        """
        SELECT '' AS _partition, md5('skill' || i) AS skill_id, 'src' || (i % 40) AS source,
               'src' || (i % 40) || '/skill-' || i AS path, 'SKILL.md' AS skill_md_file,
               CASE WHEN i >= $families AND i % 50 = 49 THEN 'no_frontmatter' ELSE 'ok' END AS status,
               names[i % 25 + 1] AS domain, 'skill-' || (i % ($skills * 19 // 20)) AS name,
               'Does task number ' || i || ' for its users, carefully and well.' AS description,
               'name: skill-' || i AS frontmatter_raw, '{"name": "skill-' || i || '"}' AS frontmatter,
               repeat('Use this skill to turn raw inputs into a checked report. ', 12) || i AS skill_md_text,
               700 AS skill_md_size, 650 AS body_chars, 'utf-8' AS text_encoding,
               [] AS spec_findings, [] AS requires_bins, [] AS requires_any_bins, [] AS requires_env,
               [] AS requires_config, [] AS supported_os, ['python', 'shell'][1:1 + i % 2 + 1] AS languages,
               ['prog-' || (i % $programs), 'prog-' || ((i * 7) % $programs)] AS programs,
               ['tool-' || (i % $cli_tools)] AS cli_tools,
               [{'ecosystem': ecosystems[i % 8 + 1], 'name': 'pkg-' || (i % $dependencies),
                 'source': 'requirements.txt'}] AS dependencies,
               ['VAR_' || (i % 300)] AS env_vars, [] AS signals, 5 AS n_files, 4096 AS total_bytes,
               false AS inventory_truncated, 1 AS schema_version
        FROM range($skills) AS t(i) CROSS JOIN dom""",
    ),
    "skill_files": (
        SKILL_FILES_SCHEMA,
        """
        SELECT '' AS _partition, md5('skill' || i) AS skill_id, 'src' || (i % 40) || '/skill-' || i AS skill_path,
               file.path, 100 + i % 900 AS size, md5(i || file.path) || md5(file.path || i) AS sha256,
               file.kind, file.language, true AS is_text, false AS is_symlink, false AS truncated, 'ok' AS status
        FROM range($skills) AS t(i),
             (VALUES ('SKILL.md', 'skill_md', 'markdown'), ('scripts/run.py', 'script', 'python'),
                     ('scripts/setup.sh', 'script', 'shell'), ('references/guide.md', 'reference', 'markdown'),
                     ('data/sample.csv', 'data', 'csv')) AS file(path, kind, language)""",
    ),
    "curated_skills": (
        CURATED_SKILLS_SCHEMA,
        """
        SELECT names[i % 25 + 1] AS _partition, md5('skill' || i) AS skill_id,
               'src' || (i % 40) || '/skill-' || i AS path, names[i % 25 + 1] AS domain,
               i < $families OR i % 50 <> 49 AS parsed,
               'pass' AS practical, [] AS practical_reasons,
               CASE WHEN i < $families THEN 'pass' ELSE 'fail' END AS compatible,
               CASE WHEN i < $families THEN [] ELSE ['needs:macos'] END AS compatible_reasons,
               'pass' AS feasible, [] AS feasible_reasons, 'pass' AS safe, [] AS safe_reasons,
               i < $families AS curated, CASE WHEN i < $families THEN [] ELSE ['needs:macos'] END AS reasons,
               '{}' AS verdicts, 1 AS schema_version
        FROM range($skills) AS t(i) CROSS JOIN dom""",
    ),
    "pattern_library": (
        PATTERN_LIBRARY_SCHEMA,
        """
        SELECT '' AS _partition, 'pattern_' || p AS id, 'Pattern ' || p AS name, capabilities[p % 5 + 1] AS capability,
               'A challenge of kind ' || p AS description, 'seed' AS origin, 1 AS version, [] AS traits,
               [] AS affinity, [] AS conflicts, 'seed.yaml' AS source, '{}' AS pattern, 'pool' AS pool_digest,
               1 AS schema_version
        FROM range(105) AS t(p) CROSS JOIN dom""",
    ),
    "pattern_selections": (
        PATTERN_SELECTIONS_SCHEMA,
        """
        SELECT domain AS _partition, skill_id, skill_path AS path, domain, 'selected' AS status, r AS rank,
               'pattern_' || ((f * 7 + r * 13) % 105) AS pattern_id,
               capabilities[((f * 7 + r * 13) % 105) % 5 + 1] AS capability, 1.0 / r AS score,
               'fits the skill' AS rationale, ['csv'] AS focus, ['csv', 'python'] AS skill_traits,
               20 AS candidates, 'rules' AS chooser, [] AS notes, 'pool' AS pool_digest
        FROM fam, range(1, 6) AS t(r), dom""",
    ),
    "blueprints": (
        BLUEPRINTS_SCHEMA,
        """
        SELECT task_partition AS _partition, task_name, k AS iteration, blueprint_digest,
               CASE WHEN k > 0 THEN md5('bp' || f || '-' || (k - 1)) END AS parent_digest, skill_id,
               'skill-' || f AS skill_name, skill_path, domain,
               ['pattern_' || (f % 105), 'pattern_' || ((f + 1) % 105), 'pattern_' || ((f + 2) % 105)] AS patterns,
               3 + k AS n_challenges, 8 AS n_facts, n_items AS n_rubric_items, 'offline:billing' AS author,
               '{"task_name": "' || task_name || '", "facts": [' || repeat('{"k": "v"}, ', 8) || '{}]}' AS blueprint,
               1 AS schema_version
        FROM ver""",
    ),
    "tasks": (
        TASKS_SCHEMA,
        """
        SELECT task_partition AS _partition, task_id, task_name, k AS iteration, status,
               CASE WHEN status = 'rejected' THEN ['leak: an author-only value in the workspace'] ELSE [] END
                   AS reasons,
               skill_id, skill_path, domain,
               ['pattern_' || (f % 105), 'pattern_' || ((f + 1) % 105), 'pattern_' || ((f + 2) % 105)] AS patterns,
               blueprint_digest, task_digest, 'objects/sha256/' || task_digest[1:2] || '/' || task_digest AS store_path,
               10 + 5 * k AS workspace_files, ['csv', 'json', 'pdf', 'xlsx'][1:2 + k] AS formats,
               'offline:billing' AS author, 'pipeline' AS source, 'dockerfile' AS environment,
               '{"items": []}' AS rubric, 6 AS leak_checked, CASE WHEN f % 20 = 0 THEN 1 ELSE 0 END AS leak_leaked,
               '[]' AS findings, 1 AS schema_version
        FROM ver""",
    ),
    "task_files": (
        TASK_FILES_SCHEMA,
        """
        SELECT task_partition AS _partition, task_id, task_digest, file.path, file.area, 200 + f % 800 AS size,
               md5(task_id || file.path) || md5(file.path || task_id) AS sha256, file.format
        FROM ver,
             (VALUES ('task.toml', 'task', 'toml'), ('instruction.md', 'instruction', 'md'),
                     ('environment/Dockerfile', 'environment', 'none'),
                     ('environment/workspace/ledger.csv', 'workspace', 'csv'),
                     ('tests/eval_spec.json', 'tests', 'json'), ('solution/solve.sh', 'solution', 'sh'))
                 AS file(path, area, format)""",
    ),
    "validations": (
        VALIDATIONS_SCHEMA,
        """
        SELECT task_partition AS _partition, task_id, k AS iteration, domain, gate,
               CASE WHEN accepted OR gate <> 'partial' THEN 'passed' ELSE 'failed' END AS status,
               CASE gate WHEN 'oracle' THEN 1.0 WHEN 'nop' THEN 0.0 ELSE 0.5 END AS reward, 0.7 AS threshold,
               'checked' AS evidence, '{"a": 1.0}' AS item_rewards, accepted, 'bwrap' AS backend
        FROM ver, (VALUES ('oracle'), ('nop'), ('partial'), ('leak'), ('judge')) AS g(gate)
        WHERE status = 'built'""",
    ),
    "rollouts": (
        ROLLOUTS_SCHEMA,
        """
        SELECT stage_partition AS _partition, rollout_id, task_id || '-g' AS group_id, 'bench' AS attempt_run_id,
               task_id, task_name, domain, k AS iteration, task_digest, 'solver' AS policy, 'qwen3-32b' AS model,
               attempt, 'bwrap' AS backend, status,
               CASE WHEN status = 'infra_error' THEN 'sandbox died' END AS error,
               TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(h % 2592000) AS started_at,
               TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(h % 2592000 + 600) AS finished_at,
               600.0 AS wall_s, 400.0 AS model_s, 150.0 AS tool_s, 50.0 AS sandbox_s, turns,
               turns * 3000 AS input_tokens, turns * 300 AS output_tokens, turns - 1 AS tool_calls,
               turns // 10 AS tool_errors, 'Done.' AS final_message, task_digest AS workspace_digest,
               'objects/sha256/' || task_digest[1:2] || '/' || task_digest AS workspace_path,
               'trajectories/' || rollout_id || '/trajectory.json' AS trajectory_path, 1 AS schema_version
        FROM ro""",
    ),
    "trajectory_steps": (
        TRAJECTORY_STEPS_SCHEMA,
        """
        WITH steps AS (SELECT *, unnest(range(1, turns + 3)) AS step_id FROM ro WHERE k = $k)
        SELECT stage_partition AS _partition, rollout_id, task_id, step_id,
               CASE step_id WHEN 1 THEN 'system' WHEN 2 THEN 'user' ELSE 'agent' END AS source,
               TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(h % 2592000 + step_id) AS timestamp,
               CASE WHEN step_id > 2 THEN 'qwen3-32b' END AS model_name,
               'Step ' || step_id || ': read the ledger, compare it with the invoices, note what differs.'
                   AS message,
               CASE WHEN step_id > 2
                    THEN '[{"tool_call_id":"c' || step_id || '","function_name":"bash","arguments":{"command":"ls"}}]'
                    ELSE '[]' END AS tool_calls,
               CASE WHEN step_id > 2
                    THEN '[{"source_call_id":"c' || step_id || '","content":"ledger.csv invoices/ notes.md",'
                         || '"is_error":false,"exit_code":0}]'
                    ELSE '[]' END AS observations,
               3000 AS prompt_tokens, 300 AS completion_tokens, 900.0 AS latency_ms, 0 AS repaired, '{}' AS extra
        FROM steps""",
    ),
    "rubric_scores": (
        RUBRIC_SCORES_SCHEMA,
        """
        SELECT stage_partition AS _partition, rollout_id, task_id, k AS iteration, domain, 'solver' AS policy,
               attempt, 'scored' AS verification, reward, reward AS raw_reward, 1.0 AS scored_weight,
               reward >= 0.999 AS full_credit, [] AS flags, 'item-' || i AS item_id,
               CASE WHEN i % 4 = 3 THEN 'llm_judge' ELSE 'deterministic' END AS method, weight,
               CASE WHEN q = 1.0 THEN 'passed' ELSE 'failed' END AS status, q,
               '{"file": "report.csv"}' AS evidence, 'fresh' AS isolation
        FROM sc
        UNION ALL BY NAME
        SELECT stage_partition AS _partition, rollout_id, task_id, k AS iteration, domain, 'solver' AS policy,
               attempt, 'infra_error' AS verification, false AS full_credit, [] AS flags,
               'not verified: sandbox died' AS error, 'fresh' AS isolation
        FROM ro WHERE status = 'infra_error'""",
    ),
    "sft_examples": (
        SFT_EXAMPLES_SCHEMA,
        """
        SELECT DISTINCT ON (rollout_id) s.stage_partition AS _partition, s.rollout_id AS example_id, s.rollout_id,
               s.task_id, s.k AS iteration, s.domain, f.skill_id, f.skill_path,
               md5('bp' || s.f || '-' || s.k) AS blueprint_digest, s.task_digest, 'solver' AS policy,
               'qwen3-32b' AS model, s.reward, s.turns,
               '[{"role":"system","content":"You are a careful agent."},{"role":"user","content":"Solve '
                   || s.task_id || '."},' || repeat('{"role":"assistant","tool_calls":[{"id":"c1","type":"function",'
                   || '"function":{"name":"bash","arguments":"{\\"command\\": \\"ls\\"}"}}]},'
                   || '{"role":"tool","tool_call_id":"c1","content":"ledger.csv invoices/ notes.md"},', 8)
                   || '{"role":"assistant","content":"Done: ' || s.rollout_id || '."}]' AS messages,
               '[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}]' AS tools
        FROM sc AS s JOIN fam AS f USING (f)
        WHERE s.status = 'completed' AND s.reward > 0.9""",
    ),
    "failure_classifications": (
        FAILURE_CLASSIFICATIONS_SCHEMA,
        """
        SELECT stage_partition AS _partition, rollout_id, task_id, k AS iteration, domain, 'item-' || i AS item_id,
               CASE WHEN f % 33 = 5 THEN 'evaluator_defect' WHEN f % 50 = 7 THEN 'missing_material'
                    ELSE 'agent_failure' END AS classification,
               'rules' AS decided_by, 'report.csv lacks the total the item asks for' AS evidence
        FROM sc WHERE q = 0.0""",
    ),
    "hardening_rounds": (
        HARDENING_ROUNDS_SCHEMA,
        """
        SELECT stage_partition AS _partition, task_id, task_name || '-i0' AS family, k AS iteration, domain,
               0.5 + (hash(f, k, 'r') % 50) / 100.0 AS trigger_reward, rolled AS triggered,
               CASE WHEN f % 33 = 5 THEN 'defective' WHEN rolled AND f % 10 < 7 THEN 'hardened' ELSE 'kept' END
                   AS outcome,
               'decided by the benchmark' AS reason, '{"challenges": []}' AS diagnosis,
               task_name || '-i' || (k + 1) AS child_task_id, 'built' AS child_status,
               ['pattern_' || (f % 105)] AS patterns_before, ['pattern_' || (f % 105)] AS patterns_after,
               [] AS grown_patterns
        FROM ver WHERE k < 2 AND accepted""",
    ),
    "services": (
        SERVICES_SCHEMA,
        """
        SELECT '' AS _partition, 'service_' || s AS service, compo[s % 4 + 1] AS domain, 'A service' AS description,
               'skill2env.compoworld.services.s' || s AS module, 7 AS tools, s % 2 AS simulated_tools,
               ['records'] AS state_fields, '{}' AS state_schema, 'verified' AS status, true AS verified,
               'bwrap' AS backend, 'pytest' AS runner, 12 AS tests_passed, 0 AS tests_failed, 1.5 AS verify_seconds,
               '12 passed' AS verify_output, 1 AS schema_version
        FROM range(13) AS t(s) CROSS JOIN dom""",
    ),
    "service_tools": (
        SERVICE_TOOLS_SCHEMA,
        """
        SELECT '' AS _partition, 'service_' || (t % 13) || '.tool_' || t AS tool_key, 'service_' || (t % 13) AS service,
               'tool_' || t AS tool, compo[(t % 13) % 4 + 1] AS domain, 'Does a thing' AS description,
               t % 46 = 0 AS simulated, t % 3 = 0 AS read_only, ['records'] AS reads, ['records'] AS writes,
               ['OrderId'] AS input_types, ['CustomerId'] AS output_types, ['not_found'] AS errors,
               'do the thing' AS intent, 0 AS component, 30 AS out_degree, 30 AS in_degree, '{}' AS spec,
               1 AS schema_version
        FROM range(92) AS g(t) CROSS JOIN dom""",
    ),
    "service_graph_edges": (
        EDGES_SCHEMA,
        """
        SELECT '' AS _partition, 'service_' || (e % 13) || '.tool_' || (e % 92) AS source,
               'service_' || ((e // 92) % 13) || '.tool_' || ((e * 7) % 92) AS target,
               'service_' || (e % 13) AS source_service, 'service_' || ((e // 92) % 13) AS target_service,
               CASE WHEN e % 10 = 0 THEN 'state' ELSE 'data' END AS kind, 'OrderId' AS via,
               'order_id' AS parameter, e % 13 <> (e // 92) % 13 AS cross_service
        FROM range(3112) AS t(e)""",
    ),
    "compo_rollouts": (
        COMPO_ROLLOUTS_SCHEMA,
        """
        SELECT domain AS _partition, rollout_id, 'cg-' || c AS group_id, 'bench' AS attempt_run_id, task_id,
               'compo-' || c AS task_name, domain, 0 AS iteration, 'solver' AS policy, 'qwen3-32b' AS model, attempt,
               'in_process' AS backend, status, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS started_at,
               TIMESTAMPTZ '2026-01-01 00:05:00+00' AS finished_at, 300.0 AS wall_s, 250.0 AS model_s,
               40.0 AS tool_s, 10.0 AS sandbox_s, 12 AS turns, 30000 AS input_tokens, 3000 AS output_tokens,
               20 AS tool_calls, 1 AS tool_errors, 'Refunded and told the customer.' AS final_message,
               1 AS schema_version, reward, '{"item-0": 1, "item-1": 0}' AS item_results, reward AS group_reward,
               0.0 AS advantage, ['orders.get_order', 'refunds.create_refund'] AS chain,
               ['orders', 'refunds'] AS services, ['orders', 'refunds', 'email'] AS world_services,
               ['cross_service'] AS capability_tags, ['orders', 'refunds'] AS services_called,
               '{"call_tool": 12}' AS meta_tool_calls, '{"steps": []}' AS trajectory
        FROM cro""",
    ),
    "compo_sft_examples": (
        COMPO_SFT_SCHEMA,
        """
        SELECT domain AS _partition, rollout_id AS example_id, rollout_id, 'cg-' || c AS group_id, task_id,
               0 AS iteration, domain, 'solver' AS policy, 'qwen3-32b' AS model, reward, reward AS group_reward,
               12 AS turns, ['orders', 'refunds'] AS services, ['orders', 'refunds', 'email'] AS world_services,
               ['orders', 'refunds'] AS services_called, ['cross_service'] AS capability_tags,
               ['orders.get_order', 'refunds.create_refund'] AS chain, 2 AS length, 20 AS tool_calls,
               1 AS list_services_calls, 2 AS list_tools_calls, 4 AS describe_tool_calls, 13 AS call_tool_calls,
               1 AS tool_errors,
               '[{"role":"user","content":"Refund that order."},{"role":"assistant","content":"Done."}]' AS messages,
               '[]' AS tools, '{"services": ["orders", "refunds"]}' AS metadata, 1 AS schema_version
        FROM cro WHERE status = 'completed' AND reward > 0.9""",
    ),
    "compo_tasks": (
        COMPO_TASKS_SCHEMA,
        """
        SELECT compo[c % 4 + 1] AS _partition, md5('compo' || c) AS task_id, compo[c % 4 + 1] AS domain,
               CASE WHEN c % 25 = 0 THEN 'skipped' ELSE 'ok' END AS status,
               ['service_1.tool_1', 'service_2.tool_2'] AS chain, ['service_1', 'service_2'] AS services,
               2 + c % 5 AS length, 'Refund that order and tell the customer.' AS goal,
               ['cross_service', 'sequential_dependency', 'state_tracking'][1:1 + c % 3] AS capability_tags,
               4 AS rubric_items, 0 AS simulated_steps, 1.0 AS oracle_score, 0.0 AS nop_score,
               0.5 AS partial_score, c AS seed, '{}' AS task, 1 AS schema_version
        FROM range($compo_tasks) AS t(c) CROSS JOIN dom""",
    ),
}
"""table → (its polars schema, the query generating it with a `_partition` column)."""

LOGS: dict[str, tuple[pl.Schema, str]] = {
    "llm_calls": (
        LLM_CALLS_SCHEMA,
        """
        SELECT md5('call' || c) AS call_id,
               TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(c * 13 % 2592000) AS called_at,
               ['curator', 'author', 'solver', 'judge', 'verifier', 'diagnoser'][c % 6 + 1] AS role,
               ['qwen3-32b', 'gpt-4.1'][c % 2 + 1] AS model, '127.0.0.1:8000' AS endpoint_host,
               'complete' AS operation, md5('p' || c)[1:16] AS prompt_hash, md5('k' || c) AS request_key,
               'author_select_patterns' AS template_id, 'v1' AS template_version,
               CASE WHEN c % 4 = 0 THEN 0 ELSE 2000 END AS input_tokens,
               CASE WHEN c % 4 = 0 THEN 0 ELSE 300 END AS output_tokens,
               CASE WHEN c % 4 = 0 THEN 2000 ELSE 0 END AS cached_input_tokens,
               CASE WHEN c % 4 = 0 THEN 300 ELSE 0 END AS cached_output_tokens,
               0.001 AS cost_usd, 800.0 + c % 500 AS latency_ms, c % 4 = 0 AS cache_hit, 1 AS attempts,
               CASE WHEN c % 4 = 0 THEN 0 ELSE 1 END AS endpoint_requests, 'stop' AS finish_reason,
               CASE WHEN c % 97 = 0 THEN 'error' ELSE 'ok' END AS status,
               CASE WHEN c % 97 = 0 THEN 'ModelUnavailable' END AS error_class,
               CASE WHEN c % 97 = 0 THEN 'infrastructure' END AS error_kind,
               ['iteration_0/rollouts', 'tasks', 'curated_skills', 'iteration_1/rollouts'][c % 4 + 1] AS asset_key,
               'finance-markets' AS partition_key, 'bench' AS run_id
        FROM range($calls) AS t(c)""",
    ),
    "rollout_attempts": (
        ROLLOUT_ATTEMPTS_SCHEMA,
        """
        SELECT e.event, TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(h % 2592000) AS recorded_at, rollout_id,
               task_id || '-g' AS group_id, 'bench' AS run_id, 'boot:1:1' AS owner, task_id, task_name, domain,
               k AS iteration, task_digest, 'solver' AS policy, 'qwen3-32b' AS model, attempt, 'bwrap' AS backend,
               CASE WHEN e.event = 'started' THEN 'started' ELSE status END AS status,
               'trajectories/' || rollout_id || '/trajectory.json' AS trajectory_path
        FROM ro, (VALUES ('started'), ('finished')) AS e(event)
        WHERE e.event = 'started' OR h % 4000 <> 1""",
    ),
    "pattern_additions": (
        PATTERN_ADDITIONS_SCHEMA,
        """
        SELECT TIMESTAMPTZ '2026-01-01 00:00:00+00' AS added_at, 'candidate_' || a AS candidate_id,
               ['added', 'merged', 'rejected'][a % 3 + 1] AS action, 'pattern_' || a AS pattern_id, 1 AS version,
               'pattern_' || (a + 1) AS nearest, 0.3 AS similarity, 'distinct enough' AS reason, '{}' AS pattern
        FROM range(50) AS t(a)""",
    ),
    "simulated_calls": (
        SIMULATED_CALLS_SCHEMA,
        """
        SELECT md5('sim' || c) AS call_id, TIMESTAMPTZ '2026-01-01 00:00:00+00' AS called_at,
               'shipping' AS service, 'track_package' AS tool, 1 AS attempt, c % 10 <> 0 AS accepted,
               '{}' AS arguments, '{}' AS result, '{}' AS state_delta, 'qwen3-32b' AS model, 'bench' AS run_id,
               'commerce' AS partition_key
        FROM range(2000) AS t(c)""",
    ),
}


def generate(lake: Lake, scale: Scale) -> dict[str, tuple[int, float]]:
    """Write every table; returns table → (rows in the newest version, seconds)."""
    gen = duckdb.connect(config={"memory_limit": "6GB"})
    gen.execute(
        "CREATE TABLE dom AS SELECT $names AS names, $capabilities AS capabilities, $compo AS compo,"
        " $ecosystems AS ecosystems",
        {"names": list(domain_slugs()), "capabilities": list(CAPABILITIES), "compo": list(COMPO_DOMAINS),
         "ecosystems": list(ECOSYSTEMS)},
    )  # fmt: skip
    params: dict[str, Any] = {
        "families": scale.families, "skills": scale.skills, "rolled": scale.rolled_families,
        "min_items": scale.min_items, "turns_lo": MEAN_STEPS - 12, "programs": PROGRAMS, "cli_tools": CLI_TOOLS,
        "dependencies": DEPENDENCIES, "calls": max(1000, scale.tasks * 2), "compo_tasks": COMPO_TASKS,
    }  # fmt: skip
    for name, query in HELPERS.items():
        gen.execute(f"CREATE TABLE {name} AS {query}", _used(query, params))
    stale = set(domain_slugs()[:STALE_DOMAINS])
    done: dict[str, tuple[int, float]] = {}
    for table, (schema, query) in TABLES.items():
        started, rows = time.perf_counter(), 0
        chunks = [{"k": k} for k in range(ITERATIONS)] if "$k" in query else [{}]
        for chunk in chunks:
            frame = gen.sql(query, params=_used(query, params | chunk)).pl()
            rows += _write(lake, table, _conform(frame, schema, partitioned=True), stale)
        done[table] = (rows, time.perf_counter() - started)
        print(f"  {table:<22} {rows:>10,} rows {done[table][1]:7.1f} s", file=sys.stderr)
    for table, (schema, query) in LOGS.items():
        started = time.perf_counter()
        rows = lake.append(table, _conform(gen.sql(query, params=_used(query, params)).pl(), schema, partitioned=False))
        done[table] = (rows, time.perf_counter() - started)
        print(f"  {table:<22} {rows:>10,} rows {done[table][1]:7.1f} s", file=sys.stderr)
    gen.close()
    return done


def _used(query: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters the query names (DuckDB refuses unused ones)."""
    return {name: value for name, value in params.items() if f"${name}" in query}


def _conform(frame: pl.DataFrame, schema: pl.Schema, *, partitioned: bool) -> pl.DataFrame:
    """The generated frame in the table's declared schema (missing columns NULL), like the pipeline's frames."""
    columns = [
        (pl.col(name) if name in frame.columns else pl.lit(None)).cast(dtype).alias(name)
        for name, dtype in schema.items()
    ]
    return frame.select(*([pl.col("_partition")] if partitioned else []), *columns)


def _write(lake: Lake, table: str, frame: pl.DataFrame, stale: set[str]) -> int:
    """One write per partition, after an earlier, superseded write of the stale ones (half their rows)."""
    parts = frame.partition_by("_partition", as_dict=True, include_key=False, maintain_order=True)
    writes = [TableWrite(table, part, str(key[0])) for key, part in parts.items()]
    superseded = [
        TableWrite(table, w.frame.head(max(1, w.frame.height // (10 if w.partition_key == "" else 2))), w.partition_key)
        for w in writes
        if w.partition_key == "" or w.partition_key.split("@")[0] in stale
    ]
    if superseded:
        lake.write(superseded, run_id="bench-superseded", code_version="bench")
    lake.write(writes, run_id="bench", code_version="bench")
    return frame.height


# -- timing ------------------------------------------------------------------------------------------

FILTERED = {
    "latest_materializations": "SELECT * FROM latest_materializations WHERE table_name = 'tasks'",
    "skills": "SELECT path, name FROM skills WHERE domain = 'finance-markets' ORDER BY path LIMIT 100",
    "skill_files": "SELECT * FROM skill_files WHERE skill_path = 'src7/skill-1007'",
    "curated_skills": "SELECT path, reasons FROM curated_skills WHERE NOT curated AND domain = 'finance-markets'",
    "curation_funnel": "SELECT * FROM curation_funnel WHERE domain = '*'",
    "curation_reasons": "SELECT * FROM curation_reasons WHERE criterion = 'compatible'",
    "catalog_stats": "SELECT * FROM catalog_stats WHERE scope = 'curated'",
    "task_set_stats": "SELECT * FROM task_set_stats",
    "catalog_languages": "SELECT language, files FROM catalog_languages LIMIT 10",
    "catalog_programs": "SELECT * FROM catalog_programs WHERE program = 'prog-7'",
    "catalog_dependencies": "SELECT ecosystem, count(*) FROM catalog_dependencies GROUP BY 1",
    "pattern_library": "SELECT capability, count(*) FROM pattern_library GROUP BY 1",
    "pattern_selections": "SELECT path, rank, pattern_id FROM pattern_selections WHERE domain = 'finance-markets' "
    "ORDER BY path, rank LIMIT 100",
    "pattern_coverage": "SELECT * FROM pattern_coverage WHERE capability = 'planning'",
    "pattern_coverage_by_domain": "SELECT * FROM pattern_coverage_by_domain WHERE domain = 'finance-markets'",
    "llm_usage": "SELECT role, sum(cost_usd) FROM llm_usage GROUP BY role",
    "blueprints": "SELECT blueprint FROM blueprints WHERE task_name = 'task-001007'",
    "tasks": "SELECT task_id, status FROM tasks WHERE domain = 'finance-markets' AND iteration = 1",
    "task_files": "SELECT * FROM task_files WHERE task_id = 'task-001007-i1'",
    "leak_report": "SELECT * FROM leak_report WHERE domain = '*'",
    "services": "SELECT * FROM services WHERE domain = 'commerce'",
    "service_tools": "SELECT * FROM service_tools WHERE service = 'service_3'",
    "service_graph_edges": "SELECT * FROM service_graph_edges WHERE cross_service AND source_service = 'service_3'",
    "compo_tasks": "SELECT task_id, goal FROM compo_tasks WHERE domain = 'commerce' AND status = 'ok'",
    "compo_rollouts": "SELECT rollout_id, reward FROM compo_rollouts WHERE domain = 'commerce' "
    "AND status = 'completed'",
    "compo_rollout_summary": "SELECT * FROM compo_rollout_summary WHERE domain = 'commerce'",
    "compo_task_tags": "SELECT * FROM compo_task_tags WHERE tag = 'cross_service'",
    "compo_sft_examples": "SELECT example_id, reward FROM compo_sft_examples WHERE domain = 'office'",
    "compo_sft": "SELECT example_id, messages FROM compo_sft WHERE domain = 'office'",
    "compoworld_stats": "SELECT * FROM compoworld_stats",
    "rollouts": "SELECT rollout_id, status, turns FROM rollouts WHERE task_id = 'task-001007-i1'",
    "trajectory_steps": "SELECT step_id, source, message FROM trajectory_steps WHERE rollout_id = 'r-1007-1-2' "
    "ORDER BY step_id",
    "open_rollout_attempts": "SELECT * FROM open_rollout_attempts WHERE domain = 'finance-markets'",
    "rollout_summary": "SELECT * FROM rollout_summary WHERE domain = 'finance-markets'",
    "validations": "SELECT gate, status FROM validations WHERE task_id = 'task-001007-i1'",
    "accepted_tasks": "SELECT count(*) FROM accepted_tasks WHERE domain = 'finance-markets' AND iteration = 1",
    "validation_funnel": "SELECT * FROM validation_funnel WHERE domain = '*'",
    "failure_classifications": "SELECT item_id, classification FROM failure_classifications "
    "WHERE task_id = 'task-001007-i1'",
    "task_defects": "SELECT * FROM task_defects WHERE domain = 'finance-markets'",
    "rubric_scores": "SELECT item_id, status, q FROM rubric_scores WHERE rollout_id = 'r-1007-1-2'",
    "rollout_rewards": "SELECT * FROM rollout_rewards WHERE task_id = 'task-001007-i1'",
    "item_pass_rates": "SELECT * FROM item_pass_rates WHERE task_id = 'task-001007-i1'",
    "hardening_rounds": "SELECT task_id, reason FROM hardening_rounds WHERE outcome = 'defective'",
    "task_families": "SELECT * FROM task_families WHERE family = 'task-001007-i0'",
    "hardening_curve": "SELECT * FROM hardening_curve WHERE domain = '*'",
    "task_stats": "SELECT * FROM task_stats WHERE domain = '*'",
    "sft_examples": "SELECT example_id, reward FROM sft_examples WHERE domain = 'finance-markets' AND iteration = 2",
    "lineage": "SELECT * FROM lineage WHERE skill_path = 'src7/skill-1007'",
}
"""A typical filtered query per view (what a person asks of it)."""
QUERIES: dict[str, tuple[str, dict[str, Any]]] = {
    "sft_candidates (export sft)": ("queries/sft_candidates", {"min_reward": 0.9}),
    "rl_tasks (export rl)": ("queries/rl_tasks", {}),
    "rl_item_pass_rates (export rl)": ("queries/rl_item_pass_rates", {"policy": None}),
    "rl_rollouts (export rl)": ("queries/rl_rollouts", {"policy": None}),
    "lineage of one SFT example": ("", {}),
}
LINEAGE_OF_EXAMPLE = "SELECT * FROM lineage WHERE example_id = (SELECT min(example_id) FROM sft_examples)"
_VIEW = re.compile(r"CREATE\s+OR\s+REPLACE\s+VIEW\s+(\w+)", re.IGNORECASE)


def public_views() -> list[str]:
    """Every view the lake defines, in file order (views added later are timed too)."""
    return [m.group(1) for p in sorted((SQL_DIR / "views").glob("*.sql")) for m in _VIEW.finditer(p.read_text())]


def timed(run: Callable[[], pl.DataFrame], runs: int) -> tuple[float, int]:
    """Median seconds over `runs` and the rows of the last answer."""
    seconds, rows = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        rows = run().height
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), rows


Timing = tuple[str, int, float, float | None, int | None]
"""(view or query, its rows, seconds for count(*) or the query, seconds for the filtered query, its rows)."""


def time_views(lake: Lake, runs: int) -> list[Timing]:
    """A timing per public view, then per export query."""
    results: list[Timing] = []
    for view in public_views():
        count_s, _ = timed(partial(lake.query, f"SELECT count(*) FROM {view}"), runs)
        count = int(lake.query(f"SELECT count(*) AS n FROM {view}").item())
        filtered = FILTERED.get(view)
        if filtered is None:
            results.append((view, count, count_s, None, None))
            continue
        filtered_s, rows = timed(partial(lake.query, filtered), runs)
        results.append((view, count, count_s, filtered_s, rows))
    for label, (name, params) in QUERIES.items():
        sql = load_sql(name) if name else LINEAGE_OF_EXAMPLE
        query_s, rows = timed(partial(lake.query, sql, params or None), runs)
        results.append((label, rows, query_s, None, None))
    return results


def print_report(results: list[Timing], lake: Lake) -> None:
    print(f"\nlake {lake.path}: {lake.path.stat().st_size / 2**20:,.0f} MiB; goal {GOAL_S} s per query\n")
    print(f"| {'view / query':<32} | {'rows':>10} | count(*) s | filtered s | filtered rows | ≤ {GOAL_S} s |")
    print(f"| {'-' * 32} | {'-' * 10} | ---------- | ---------- | ------------- | ------- |")
    slow = []
    for name, count, count_s, filtered_s, rows in results:
        worst = max(count_s, filtered_s or 0.0)
        ok = "yes" if worst <= GOAL_S else "NO"
        if worst > GOAL_S:
            slow.append(name)
        filtered = "" if filtered_s is None else f"{filtered_s:.3f}"
        shown = "" if rows is None else rows
        print(f"| {name:<32} | {count:>10,} | {count_s:>10.3f} | {filtered:>10} | {shown:>13} | {ok:>7} |")
    print(
        f"\n{len(results) - len(slow)} of {len(results)} within {GOAL_S} s"
        + (f"; slow: {', '.join(slow)}" if slow else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--scores", type=int, default=1_000_000)
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=3, help="Timed runs per query (the median is shown).")
    parser.add_argument(
        "--lake", type=Path, default=None, help="Reuse (or create) this lake instead of a temporary one."
    )
    args = parser.parse_args()
    scale = Scale(args.tasks, args.scores, args.steps)
    with tempfile.TemporaryDirectory(prefix="skill2env-lake-bench-") as scratch:
        path = args.lake or Path(scratch) / "lake.duckdb"
        lake = Lake(path)
        if not path.exists():
            print(f"generating into {path} …", file=sys.stderr)
            started = time.perf_counter()
            generate(lake, scale)
            print(f"generated in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        print_report(time_views(lake, args.runs), lake)


if __name__ == "__main__":
    main()
