"""Labels every sandbox container and volume carries, so the reaper can find what a crashed run left."""

SANDBOX_LABEL = "org.skill2env.sandbox"
ROLLOUT_LABEL = "org.skill2env.rollout"
OWNER_LABEL = "org.skill2env.owner"
"""`owner_token()` of the process that started the rollout."""
DEADLINE_LABEL = "org.skill2env.deadline"
"""Unix time at which the rollout's wall clock runs out."""
