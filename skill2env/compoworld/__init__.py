"""CompoWorld: composable services with typed state, a world model for the tools that cannot be
implemented, a tool dependency graph, and cross-service tasks from random walks over it.

Where things are:

* `types` — the shared interface types (CustomerId, Money, EmailAddress, DateRange, …);
* `service` — the `Service` base, the `@tool` decorator and `ToolSpec`; `services/` — the
  hand-written services, each with its own tests in `services/tests/`;
* `world` — a set of service instances with their states; `gateway` — the four meta-tools the
  agent sees; `world_model` — the fallback for `simulated` tools;
* `universe` — the seeded shared facts (customers, products, staff, orders) every service's
  initial state is built from; `schema` — reading interface types out of JSON schemas;
* `graph` — the tool dependency graph; `walks` — seeded random walks over it; `tasks` — a walk
  made into a `CompoTask` (initial states, goal, oracle, rubric) and oracle replay, with
  `binding` (arguments bound from earlier results or sampled) and `goals` (the user request);
* `scoring` — the state/output checks; `reward` — the group reward for RL;
* `rollout` — attempts at a task through the agent loop with the meta-tools as the agent's tools,
  scored by the rubric; `hosts` — where the world runs (in process, or the services in a bwrap
  sandbox through `gateway_main`); `gates` — the validation gates as `validation.gates` outcomes;
  `hardening` — the next, harder version of a task; `sft` and `rollout_tables` — the lake's
  `compo_sft_examples` and `compo_rollouts` frames;
* `world_model_llm` — the world model over the project's model client;
* `verify` — run a service's tests in a sandbox; `tables` — the lake's frames.

The modules a service needs (`types`, `errors`, `service`, `universe`, `services/`) import
nothing but the standard library and pydantic, so a service and its tests run in a bare sandbox.
"""
