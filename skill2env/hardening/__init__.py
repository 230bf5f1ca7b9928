"""Hardening: after an iteration's rollouts, the tasks the solver found easy are diagnosed, a
proposal revises their blueprint, the task is rebuilt and passes every gate again, and the patterns
the diagnoses call for may grow the pool (`stage`, `diagnosis`, `model_diagnosis`, `revise`,
`growth`); CompoWorld's tasks harden by their own moves (`compoworld`)."""
