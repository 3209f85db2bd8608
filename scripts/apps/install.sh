#!/usr/bin/env bash
# Install the apps of scripts/apps/ named as arguments (default: all), idempotently: the
# PyPI ones into virtualenvs of their own under ~/.cache/browser-agent-apps, the Debian
# ones with apt-get (as root). Nothing is started: each app's start() does that.
set -euo pipefail
cd "$(dirname "$0")/../.."
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(trac datasette wordpress phpmyadmin redmine mediawiki)
debs=()
for app in "${apps[@]}"; do
  case "$app" in
    wordpress) debs+=(wordpress wordpress-theme-twentytwentyone wordpress-theme-twentytwentythree
                      mariadb-server mariadb-client php-cli php-mysql php-mbstring php-xml) ;;
    phpmyadmin) debs+=(phpmyadmin mariadb-server mariadb-client php-cli php-mysql php-mbstring) ;;
    redmine) debs+=(redmine redmine-sqlite puma) ;;
    mediawiki) debs+=(mediawiki php-cli php-sqlite3 php-mbstring php-xml php-intl) ;;
  esac
done
missing=()
for deb in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing+=("$deb")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "apps: as root, apt-get install ${missing[*]}" >&2; exit 1; }
  export DEBIAN_FRONTEND=noninteractive
  # Redmine's default instance gets no database: each start makes an instance of its own
  echo "redmine redmine/instances/default/dbconfig-install boolean false" | debconf-set-selections
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for app in "${apps[@]}"; do
  python3 -c "import sys; sys.path.insert(0, '.'); from scripts.apps import load; load('$app').install()"
done
