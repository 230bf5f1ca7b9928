"""The stages of one hardening iteration, as functions the Dagster assets call."""
