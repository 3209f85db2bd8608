"""The store: SQLModel tables for runs, steps and skills, in a SQLite file or a PostgreSQL
database (db opens it, models holds the tables). A run's own reads and writes (connection, rows,
run_rows, run_logs, skill_use) are SQL on the database driver and load no SQLAlchemy.
Nothing is imported here, so the store's error and path helpers load without SQLAlchemy."""
