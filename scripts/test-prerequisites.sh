#!/bin/sh
# `pnpm test` (and so .ci/run) runs this before anything else: the suite needs Chromium (the /docs
# page is checked in a real headless browser at /usr/bin/chromium), redis-server (the suite starts
# its own Redis, and outage tests start and kill more, as a Cluster and a Sentinel group too), openssl (the SSRF test makes a
# certificate), haproxy and unzip (below) and ip (iproute2: checks of a machine without Redis run in a network namespace). Root on Debian: installs what is missing with apt-get. Otherwise: names what is
# missing and exits 1, so that no test runs and fails for a reason that is not a bug.
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || missing="$missing iproute2"
# haproxy: two gateways behind a balancer (many-gateways test); unzip: helm out of its npm package's layer.zip (chart test).
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing="$missing haproxy"
command -v unzip >/dev/null 2>&1 || missing="$missing unzip"
[ -z "$missing" ] && exit 0

if [ "$(id -u 2>/dev/null)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "pnpm test: installing its prerequisites with apt-get:$missing" >&2
  if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
    exit 0
  fi
  echo "pnpm test: apt-get could not install$missing; nothing was run" >&2
  exit 1
fi
echo "pnpm test needs$missing, which this machine lacks (Debian: sudo apt-get install$missing); nothing was run" >&2
exit 1
