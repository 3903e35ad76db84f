#!/usr/bin/env bash
# Make a Docker engine answer on this machine: install Debian's docker.io when missing, start dockerd when
# it is not running (these machines have no systemd), and wait until `docker info` answers.
# Used by `make test` so the Docker sandbox backend is really tested; needs root where it must install or start.
set -euo pipefail

if docker info >/dev/null 2>&1; then
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-docker: dockerd is not installed and this is not root; install docker.io" >&2
    exit 1
  fi
  echo "ensure-docker: installing docker.io" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-docker: dockerd is not running and this is not root; start it" >&2
    exit 1
  fi
  echo "ensure-docker: starting dockerd (log: /var/log/judgegraph-dockerd.log)" >&2
  setsid dockerd >/var/log/judgegraph-dockerd.log 2>&1 < /dev/null &
fi
for _ in $(seq 1 120); do
  if docker info >/dev/null 2>&1; then
    exit 0
  fi
  sleep 0.5
done
echo "ensure-docker: dockerd did not answer within 60s; see /var/log/judgegraph-dockerd.log" >&2
tail -20 /var/log/judgegraph-dockerd.log >&2 || true
exit 1
