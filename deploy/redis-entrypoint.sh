#!/bin/sh
# redis:7-alpine stand-in: redis-server with protected mode off (the official image's default: it is
# reached only over the compose network), then the command's own arguments.
set -e
if [ "${1:-}" = redis-server ]; then
  shift
  exec redis-server --protected-mode no "$@"
fi
exec "$@"
