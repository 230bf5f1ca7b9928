"""skill2env: turn agent skills into executable, graded, progressively hardened training environments."""

__version__ = "0.1.0"
