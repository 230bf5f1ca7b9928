"""The author `skill2env run` uses: the model author when the author role has an endpoint, else
the offline world kits (`skill2env.kits.OfflineAuthor`: a curated skill is matched to the kit that
fits it best and its selected patterns are mapped onto that kit's)."""

from __future__ import annotations

from skill2env.home import Home
from skill2env.kits.authoring import OfflineAuthor
from skill2env.lake.lake import Lake
from skill2env.llm.config import LlmSettings
from skill2env.tasks.authoring import Author
from skill2env.tasks.model_author import model_author


def offline_or_model_author() -> Author:
    """The author of `skill2env run`: the model author when the author role has an endpoint (its
    `llm_calls` are appended to the home's lake after every skill), else the offline kits."""
    home = Home.resolve(None)
    author = model_author(LlmSettings.load(home), lake=Lake(home.lake_path))
    return author if author is not None else OfflineAuthor()
