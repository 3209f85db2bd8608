"""The schema of release 0.1: runs, steps, skills, validations, memories.

Stores made by release 0.1 (with ``create_all``, before migrations) are stamped with
this revision when first opened, then upgraded.
"""

import sqlalchemy as sa
from alembic import op

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
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("command", sa.String(), nullable=False),
        sa.Column("start_url", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("answer", sa.String(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("steps", sa.Integer(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("final_url", sa.String(), nullable=True),
        sa.Column("log_path", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_run_started_at", "run", ["started_at"])
    op.create_index("ix_run_status", "run", ["status"])

    op.create_table(
        "step",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("tool", sa.String(), nullable=False),
        sa.Column("arguments", sa.String(), nullable=False),
        sa.Column("response", sa.String(), nullable=False),
        sa.Column("ok", sa.Boolean(), nullable=False),
        sa.Column("error", sa.String(), nullable=True),
        sa.Column("duration_s", sa.Float(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("url_after", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_step_run_id", "step", ["run_id"])


def _skills() -> None:
    """Harvested skills, a row per version."""
    op.create_table(
        "skill",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("module_path", sa.String(), nullable=False),
        sa.Column("shape", sa.String(), nullable=False),
        sa.Column("command_templates", sa.String(), nullable=False),
        sa.Column("signature", sa.String(), nullable=False),
        sa.Column("docstring", sa.String(), nullable=False),
        sa.Column("example_args", sa.String(), nullable=False),
        sa.Column("start_url", sa.String(), nullable=False),
        sa.Column("expected_end", sa.String(), nullable=False),
        sa.Column("complete", sa.Boolean(), nullable=False),
        sa.Column("selectors", sa.String(), nullable=False),
        sa.Column("source_runs", sa.String(), nullable=False),
        sa.Column("healed", sa.String(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("successes", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(), nullable=True),
        sa.Column("last_validated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
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
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("skill_id", sa.Integer(), nullable=False),
        sa.Column("skill_name", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("selector", sa.String(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
        sa.Column("screenshot", sa.String(), nullable=True),
        sa.Column("final_url", sa.String(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["skill_id"], ["skill.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_validation_skill_id", "validation", ["skill_id"])


def _memories() -> None:
    """The memory across runs."""
    op.create_table(
        "memoryentry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_memoryentry_created_at", "memoryentry", ["created_at"])
    op.create_index("ix_memoryentry_kind", "memoryentry", ["kind"])
    op.create_index("ix_memoryentry_run_id", "memoryentry", ["run_id"])


def downgrade() -> None:
    for table in ("memoryentry", "validation", "skill", "step", "run"):
        op.drop_table(table)
