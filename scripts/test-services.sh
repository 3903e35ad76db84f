#!/usr/bin/env bash
# What the judges and tests need on the machine besides Python: bubblewrap (process sandbox), debootstrap
# (sandbox image build), the toolchains run_code builds with in the process sandbox (which runs the host's /usr:
# gcc, g++, a JDK, Node, Go, Rust, Python's numpy, sortedcontainers and sympy; the Docker image has its own), Tesseract
# (OCR), Chromium (the viewer's browser tests) and a running Docker engine (Docker sandbox). Installs Debian's packages when missing and starts dockerd
# when it is not running (these machines have no systemd). Used by `make test`; needs root where it must act.
set -euo pipefail

missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# The process sandbox sees /usr only: a toolchain elsewhere (~/.cargo, /opt) does not count.
for tool in gcc:gcc g++:g++ javac:default-jdk-headless node:nodejs go:golang-go rustc:rustc; do
  [ -x "/usr/bin/${tool%%:*}" ] || missing+=("${tool#*:}")
done
# The Python libraries answers are written for (the image's LIBRARY_PACKAGES, sandboxes/_image.py).
for module in numpy:python3-numpy sortedcontainers:python3-sortedcontainers sympy:python3-sympy; do
  /usr/bin/python3 -c "import ${module%%:*}" 2>/dev/null || missing+=("${module#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test-services: missing ${missing[*]} and not root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "test-services: installing ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if docker info >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "test-services: dockerd is not running and this is not root: start it" >&2
  exit 1
fi
# A dockerd killed with its session leaves pid files behind (its pid may even linger as a zombie), and a new
# dockerd refuses to start over them: remove those whose process is not a live one.
for pidfile in /var/run/docker.pid /run/docker/containerd/containerd.pid; do
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile" 2>/dev/null || true)
    state=$(awk '/^State:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    if [ -z "$pid" ] || [ -z "$state" ] || [ "$state" = Z ]; then
      rm -f "$pidfile"
    fi
  fi
done
echo "test-services: starting dockerd (log: /var/log/judgegraph-dockerd.log)" >&2
setsid dockerd >/var/log/judgegraph-dockerd.log 2>&1 < /dev/null &
for _ in $(seq 1 120); do
  if docker info >/dev/null 2>&1; then
    exit 0
  fi
  sleep 0.5
done
echo "test-services: dockerd did not answer within 60s" >&2
tail -20 /var/log/judgegraph-dockerd.log >&2 || true
exit 1
