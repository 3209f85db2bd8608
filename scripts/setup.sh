#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with the project installed, a
# Chromium for Playwright (its own download if present, else the system's) and the
# PostgreSQL server the store tests start a throwaway cluster of. As root on Debian, the
# 'chromium' and 'postgresql' packages are installed when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$python" -m venv .venv
fi

stamp=.venv/.browser-agent-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing the project and its test tools into .venv"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
  # set up by earlier versions; it refuses to load beside pytest-playwright
  .venv/bin/python -m pip uninstall --quiet --yes pytest-playwright-asyncio 2>/dev/null || true
  echo "$want" > "$stamp"
fi

can_apt() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null
}

apt_updated=
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$apt_updated" ]; then
    apt-get update -qq
    apt_updated=1
  fi
  apt-get install -y -qq "$@" >/dev/null
}

has_postgres_server() {
  command -v initdb >/dev/null || command -v pg_ctl >/dev/null ||
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

has_playwright_browser() {
  .venv/bin/python - <<'PY' 2>/dev/null
import os, sys
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    sys.exit(0 if os.path.exists(p.chromium.executable_path) else 1)
PY
}

if [ -n "${BROWSER_AGENT_CHROMIUM:-}" ]; then
  [ -x "$BROWSER_AGENT_CHROMIUM" ] || { echo "setup: BROWSER_AGENT_CHROMIUM=$BROWSER_AGENT_CHROMIUM is not executable" >&2; exit 1; }
elif command -v chromium >/dev/null || command -v chromium-browser >/dev/null || has_playwright_browser; then
  :
elif can_apt; then
  echo "setup: installing Debian's chromium"
  apt_install chromium
else
  echo "setup: no Chromium found. Install your distribution's 'chromium' package (as root:" >&2
  echo "       apt-get install chromium), or run '.venv/bin/playwright install chromium'," >&2
  echo "       or set BROWSER_AGENT_CHROMIUM to a Chromium executable." >&2
  exit 1
fi
# Headless runs launch Chromium's headless shell when it is on PATH: a page costs it a
# fraction of the CPU the full browser spends. Optional: not every release packages it.
if [ -z "${BROWSER_AGENT_CHROMIUM:-}" ] && ! command -v chromium-headless-shell >/dev/null &&
  ! has_playwright_browser && can_apt; then
  echo "setup: installing Debian's chromium-headless-shell (headless runs use it)"
  apt_install chromium-headless-shell ||
    echo "setup: no chromium-headless-shell package here; headless runs use chromium" >&2
fi
if has_postgres_server; then
  :
elif can_apt; then
  echo "setup: installing Debian's postgresql (the store tests start a throwaway server)"
  apt_install postgresql
else
  echo "setup: no PostgreSQL server found; the store tests start a throwaway one and fail" >&2
  echo "       without it. Install your distribution's 'postgresql' package (as root:" >&2
  echo "       apt-get install postgresql), or put PostgreSQL's initdb and pg_ctl on PATH." >&2
fi
# The app tests (tests/test_apps_*.py, tests/test_filter_sort_apps.py,
# tests/test_learnt_on_mediawiki.py) run Trac and Datasette from PyPI, each in a virtualenv
# of its own, and MediaWiki from Debian's package (its tests are skipped without it).
echo "setup: installing the test apps (Trac, Datasette) under ~/.cache/browser-agent-apps"
bash scripts/apps/install.sh trac datasette
if [ -e /usr/share/mediawiki/maintenance/install.php ]; then
  :
elif can_apt; then
  echo "setup: installing Debian's mediawiki (a real application the learning tests use)"
  bash scripts/apps/install.sh mediawiki
else
  echo "setup: MediaWiki is not installed; its tests are skipped (as root:" >&2
  echo "       bash scripts/apps/install.sh mediawiki)." >&2
fi
echo "setup: ready"
