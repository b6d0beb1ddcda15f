#!/bin/sh
# The container's entrypoint: apply the migrations, then serve (uvicorn, via python -m app).
set -eu
cd "$(dirname "$0")/.." 2>/dev/null || true
[ -f alembic.ini ] || cd /srv/app
python -m app migrate
export RUN_MIGRATIONS=false  # done just above: the server need not start a process to find nothing to do
exec python -m app serve
