"""Rewrite the settings table in README.md from the Settings model.

    .venv/bin/python scripts/settings_table.py           # rewrite the table in place
    .venv/bin/python scripts/settings_table.py --check   # exit 1 when README.md is out of date

The table lies between the two marker comments of browser_agent.settings
(TABLE_START, TABLE_END); the text around them is left as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from browser_agent.settings import with_settings_table

README = Path(__file__).resolve().parent.parent / "README.md"


def main() -> int:
    """Rewrite (or with --check, compare) the README's settings table; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    parser.add_argument("--readme", type=Path, default=README, help="the file to rewrite")
    args = parser.parse_args()
    text = args.readme.read_text(encoding="utf-8")
    updated = with_settings_table(text)
    if args.check:
        current = updated == text
        print(f"{args.readme}: settings table {'is current' if current else 'is out of date'}")
        return 0 if current else 1
    if updated != text:
        args.readme.write_text(updated, encoding="utf-8")
        print(f"{args.readme}: settings table rewritten")
    else:
        print(f"{args.readme}: settings table already current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
