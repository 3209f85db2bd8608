"""Columns for the revisions, a kind at a time: ``required(sa.String(), "id", "command")``
gives NOT NULL string columns, ``optional`` nullable ones. A table's columns then read as
a few lines by kind; their order in the table follows the order they are given in.
"""

import sqlalchemy as sa

#: Times are stored with their zone, as the models' ``UTCDateTime`` columns are.
TIME = sa.DateTime(timezone=True)


def required(kind: sa.types.TypeEngine, *names: str) -> list[sa.Column]:
    """NOT NULL columns of one kind, one per name."""
    return [sa.Column(name, kind, nullable=False) for name in names]


def optional(kind: sa.types.TypeEngine, *names: str) -> list[sa.Column]:
    """Nullable columns of one kind, one per name."""
    return [sa.Column(name, kind, nullable=True) for name in names]
