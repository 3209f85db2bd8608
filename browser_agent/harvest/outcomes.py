"""What harvesting one source gave: the outcome names shared by the harvester and the
command line (kept apart so the command line loads without the harvester)."""

NEW_SKILL = "new skill"
NEW_VERSION = "new version"
UNCHANGED = "unchanged"  # the same code as the current version: the source is added to it
ALREADY = "already harvested"
SKIPPED = "skipped"  # the log holds no skill (or cannot be read): a property of the log
FAILED = "failed"  # harvesting raised; tried again by the next batch
