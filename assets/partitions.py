"""Partitions shared by the assets."""

import dagster as dg

DOMAIN_PARTITIONS_NAME = "domain"
domain_partitions = dg.DynamicPartitionsDefinition(name=DOMAIN_PARTITIONS_NAME)
"""One key per skill domain (a slug of the fixed taxonomy), added when the catalog finds the domain."""
