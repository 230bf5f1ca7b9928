"""Exports: SFT examples (OpenAI chat JSONL, Parquet) and RL task sets."""
