#!/usr/bin/env bash
# The Debian packages the tests need, installed when missing (a fresh machine has only Node,
# PostgreSQL and Redis): libnet-smpp-perl is the SMPP customer we did not write (smpp-server's
# Net::SMPP test); chromium is the browser the dashboard's end-to-end test drives
# (playwright-core, /usr/bin/chromium). Where we cannot install (not root, no apt-get), one line
# says what to install, and the tests that need it fail naming it.
set -euo pipefail
PACKAGES=(libnet-smpp-perl chromium)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "test: installing ${missing[*]} (Debian packages the tests need)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "test: missing Debian packages ${missing[*]}: sudo apt-get install -y ${missing[*]} (the tests that need them will fail)"
fi
