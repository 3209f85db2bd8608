"""The store: SQLModel tables for runs, steps and skills, in SQLite or any SQLAlchemy URL
(db opens it, models holds the tables). Nothing is imported here, so the store's error
and path helpers load without SQLAlchemy."""
