-- Grain: one row per CompoWorld SFT example fit to train on: reward above `sft_min_reward()` (the paper's
-- r > 0.9; the macro is skill2env.thresholds.SFT_MIN_REWARD), with its messages, tools and the sample's metadata.
CREATE OR REPLACE VIEW compo_sft AS
SELECT example_id, task_id, iteration, domain, policy, model, reward, services, world_services,
       capability_tags, length, tool_calls, list_services_calls, list_tools_calls, describe_tool_calls,
       call_tool_calls, turns, messages, tools, metadata
FROM compo_sft_examples
WHERE reward > sft_min_reward()
ORDER BY domain, iteration, task_id, example_id;
