#!/usr/bin/env bash
# The page tests drive Debian's Chromium (playwright-core must not download a browser; the npm
# registry and Debian's packages are all this machine reaches). Installs it when missing, then
# runs the given command.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "› installing Debian's chromium for the page tests" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
    || { $sudo apt-get update >/dev/null && $sudo apt-get install -y --no-install-recommends chromium >/dev/null; }
fi
exec "$@"
