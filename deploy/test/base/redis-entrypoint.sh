#!/usr/bin/env bash
# As the official image: without a config file, protected mode is off so that other
# containers may connect (no password is the caller's choice); runs as the redis user.
set -euo pipefail
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  case "${2:-}" in
    *.conf) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
