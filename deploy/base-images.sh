#!/usr/bin/env bash
# Build, from Debian packages, the base images the Dockerfile and docker-compose.yml name, for a host with
# podman and no registry (the deployment test, tests/deploy/): `mmdebstrap` makes a root file system, then
# `podman import` tags it with the name compose asks for. Never pulls from a registry.
#
#   python:3.11-slim    Debian's python3.11 and pip (installs system-wide, as the real image's pip does)
#   postgres:16-alpine  Debian's PostgreSQL 15 with deploy/postgres-entrypoint.sh (POSTGRES_USER,
#                       POSTGRES_PASSWORD, POSTGRES_DB, PGDATA, pg_isready, pg_dump, pg_restore)
#   redis:7-alpine      Debian's redis-server and redis-cli (protected mode off, as the real image)
#   caddy:2-alpine      Debian's caddy (XDG data in /data, config in /config, as the real image)
#
# An image is rebuilt only when it is missing or was built by another version of this script (its label
# org.three-thirteen.base holds a hash of this script, its own entrypoint and the host's own CAs). FORCE=1
# rebuilds all. Downloaded .deb files are kept in $DEB_CACHE between runs.
#
# The host's own certificate authorities ($LOCAL_CA_DIR, Debian's /usr/local/share/ca-certificates) are
# trusted in the images too: behind a proxy that inspects TLS, `pip install` in the app's build needs them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
SUITE="${SUITE:-bookworm}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
DEB_CACHE="${DEB_CACHE:-/var/cache/three-thirteen-deploy/debs}"
LOCAL_CA_DIR="${LOCAL_CA_DIR:-/usr/local/share/ca-certificates}"
LABEL=org.three-thirteen.base
hash_of() {  # this script, the image's own files ($@) and the host's CAs
  cat "$here/base-images.sh" "$@" $(find "$LOCAL_CA_DIR" -name '*.crt' 2>/dev/null | sort) | sha256sum | cut -c1-16
}
# A customize hook: the host's own CAs added to the image's trust store.
local_cas='if ls '"$LOCAL_CA_DIR"'/*.crt >/dev/null 2>&1; then
  cp '"$LOCAL_CA_DIR"'/*.crt "$1"/usr/local/share/ca-certificates/ && chroot "$1" update-ca-certificates >/dev/null
fi'

current() {  # is image $1 built from hash $2?
  [ "${FORCE:-}" != 1 ] || return 1
  [ "$(podman image inspect --format "{{index .Config.Labels \"$LABEL\"}}" "$1" 2>/dev/null)" = "$2" ]
}

# build NAME PACKAGES CUSTOMIZE-HOOK OWN-FILE -- podman-import --change arguments...
build() {
  local name="$1" packages="$2" hook="$3" hash
  hash="$(hash_of $4)"
  shift 5
  if current "$name" "$hash"; then
    echo "base image $name: up to date ($hash)"
    return
  fi
  echo "base image $name: building from Debian $SUITE ($packages)"
  local start=$SECONDS old
  old="$(podman image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
  mkdir -p "$DEB_CACHE"
  mmdebstrap --quiet --variant=minbase --mode=root --format=tar \
    --aptopt='APT::Install-Recommends "false"' \
    --include="$packages" \
    --skip=download/empty --skip=essential/unlink \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
    --setup-hook="sync-in $DEB_CACHE /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $DEB_CACHE" \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages' \
    --customize-hook="$hook" \
    --customize-hook='rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/locale/*' \
    "$SUITE" - "$MIRROR" |
    podman import --quiet --change "LABEL $LABEL=$hash" "$@" - "$name" >/dev/null
  if [ -n "$old" ]; then  # the former build, unless a container still uses it
    podman rmi "$old" >/dev/null 2>&1 || true
  fi
  echo "base image $name: built in $((SECONDS - start)) s"
}

build python:3.11-slim "python3.11,python3-pip,python3-setuptools,python3-wheel,ca-certificates,passwd" \
  'ln -sf python3 "$1"/usr/bin/python; rm -f "$1"/usr/lib/python3.11/EXTERNALLY-MANAGED; '"$local_cas" "" -- \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["python3"]'

build postgres:16-alpine "postgresql-15,postgresql-client-15" \
  "install -m 755 '$here/postgres-entrypoint.sh' \"\$1\"/usr/local/bin/docker-entrypoint.sh" \
  "$here/postgres-entrypoint.sh" -- \
  --change 'ENV LANG=C.UTF-8' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' \
  --change 'STOPSIGNAL SIGINT' \
  --change 'EXPOSE 5432'

build redis:7-alpine "redis-server,redis-tools" \
  "install -m 755 '$here/redis-entrypoint.sh' \"\$1\"/usr/local/bin/docker-entrypoint.sh" \
  "$here/redis-entrypoint.sh" -- \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["redis-server"]' \
  --change 'EXPOSE 6379'

build caddy:2-alpine "caddy,ca-certificates" \
  'mkdir -p "$1"/data "$1"/config "$1"/etc/caddy; '"$local_cas" "" -- \
  --change 'ENV XDG_CONFIG_HOME=/config' \
  --change 'ENV XDG_DATA_HOME=/data' \
  --change 'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]' \
  --change 'EXPOSE 80' --change 'EXPOSE 443'
