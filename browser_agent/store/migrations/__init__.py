"""The store's schema history: alembic revisions, applied when the store is opened.

``versions/`` holds one module per revision, oldest first: ``0001`` is the schema of
release 0.1 (the first one), each later revision one change on top of it. Together they
make exactly the tables of :mod:`browser_agent.store.models` and
:mod:`browser_agent.store.memory_models`; a test compares the two.

To change a table: edit the model, add a revision module after the newest (alembic's
``command.revision(config, autogenerate=True)`` with
:func:`browser_agent.store.migrate.alembic_config` drafts one), and set
:data:`HEAD_REVISION` to it. On SQLite, altering a column needs alembic's batch mode
(``with op.batch_alter_table(...)``), which copies the table. A revision that makes a
table names its columns a kind at a time (:mod:`.columns`).
"""

from __future__ import annotations

#: The newest revision. Opening a store at this revision needs no migration and does not
#: import alembic; a test checks it names the head of ``versions/``.
HEAD_REVISION = "0015"
