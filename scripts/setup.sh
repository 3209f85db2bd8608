#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with the project installed, and a
# Chromium for Playwright (its own download if present, else the system's; as root on
# Debian, the 'chromium' package is installed when missing).
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
  echo "$want" > "$stamp"
fi

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
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "setup: installing Debian's chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
else
  echo "setup: no Chromium found. Install your distribution's 'chromium' package (as root:" >&2
  echo "       apt-get install chromium), or run '.venv/bin/playwright install chromium'," >&2
  echo "       or set BROWSER_AGENT_CHROMIUM to a Chromium executable." >&2
  exit 1
fi
echo "setup: ready"
