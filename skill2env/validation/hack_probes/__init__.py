"""The hack-probe gate: adversarial scripted policies that try to earn reward without doing the task
(see `strategies` for the library, `runner` for how they run and are scored)."""

from skill2env.validation.hack_probes.runner import ProbeOutcome, ProbeStatus, gate_outcome, probe_task
from skill2env.validation.hack_probes.strategies import FAMILIES, SIGNATURES, STRATEGIES, Strategy, flag

__all__ = [
    "FAMILIES",
    "SIGNATURES",
    "STRATEGIES",
    "ProbeOutcome",
    "ProbeStatus",
    "Strategy",
    "flag",
    "gate_outcome",
    "probe_task",
]
