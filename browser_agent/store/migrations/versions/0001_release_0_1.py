"""The schema of release 0.1: runs, steps, skills, validations, memories.

Stores made by release 0.1 (with ``create_all``, before migrations) are stamped with
this revision when first opened, then upgraded.
"""

import sqlalchemy as sa
from alembic import op

from browser_agent.store.migrations.columns import TIME, optional, required

revision, down_revision = "0001", None


def upgrade() -> None:
    _runs()
    _skills()
    _validations()
    _memories()


def _runs() -> None:
    """Runs and their steps."""
    op.create_table(
        "run",
        *required(sa.String(), "id", "command", "status", "model", "log_path"),
        *optional(sa.String(), "start_url", "answer", "error", "final_url"),
        *required(TIME, "started_at"),
        *optional(TIME, "finished_at"),
        *required(sa.Integer(), "steps", "llm_calls", "prompt_tokens", "completion_tokens"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_run_started_at", "run", ["started_at"])
    op.create_index("ix_run_status", "run", ["status"])

    op.create_table(
        "step",
        *required(sa.Integer(), "id", "index", "llm_calls", "prompt_tokens", "completion_tokens"),
        *required(sa.String(), "run_id", "tool", "arguments", "response"),
        *required(sa.Boolean(), "ok"),
        *optional(sa.String(), "error", "url_after"),
        *required(sa.Float(), "duration_s"),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_step_run_id", "step", ["run_id"])


def _skills() -> None:
    """Harvested skills, a row per version."""
    op.create_table(
        "skill",
        *required(sa.Integer(), "id", "version", "uses", "successes", "failures"),
        *required(sa.String(), "name", "status", "module_path", "shape", "command_templates"),
        *required(sa.String(), "signature", "docstring", "example_args", "start_url"),
        *required(sa.String(), "expected_end", "selectors", "source_runs", "healed"),
        *required(sa.Boolean(), "current", "complete"),
        *optional(sa.String(), "last_error"),
        *optional(TIME, "last_validated_at"),
        *required(TIME, "created_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_skill_current", "skill", ["current"])
    op.create_index("ix_skill_name", "skill", ["name"])
    op.create_index("ix_skill_shape", "skill", ["shape"])
    op.create_index("ix_skill_status", "skill", ["status"])


def _validations() -> None:
    """Replays of skills by the validator."""
    op.create_table(
        "validation",
        *required(sa.Integer(), "id", "skill_id", "version"),
        *required(sa.String(), "skill_name"),
        *required(sa.Boolean(), "passed"),
        *optional(sa.Integer(), "step"),
        *optional(sa.String(), "selector", "error", "screenshot", "final_url"),
        *required(sa.Float(), "seconds"),
        *required(TIME, "checked_at"),
        sa.ForeignKeyConstraint(["skill_id"], ["skill.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_validation_skill_id", "validation", ["skill_id"])


def _memories() -> None:
    """The memory across runs."""
    op.create_table(
        "memoryentry",
        *required(sa.Integer(), "id", "tokens"),
        *required(sa.String(), "kind", "text"),
        *optional(sa.String(), "run_id"),
        *required(TIME, "created_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_memoryentry_created_at", "memoryentry", ["created_at"])
    op.create_index("ix_memoryentry_kind", "memoryentry", ["kind"])
    op.create_index("ix_memoryentry_run_id", "memoryentry", ["run_id"])


def downgrade() -> None:
    for table in ("memoryentry", "validation", "skill", "step", "run"):
        op.drop_table(table)
