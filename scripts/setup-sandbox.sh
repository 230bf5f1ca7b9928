#!/usr/bin/env bash
# Make the sandbox backends usable on this machine; safe to run again and again.
#   - installs docker.io, docker-compose, debootstrap and bubblewrap when missing (apt-get, as root);
#     docker-compose (Compose v1) is what the Harbor tests run tasks with (docs/harbor.md); chromium
#     is the browser of the UI tests
#   - starts dockerd in the background when no engine answers, and waits for it
#   - builds the skill2env base image when the current recipe's image is missing
# SKILL2ENV_SKIP_DOCKER=1 skips the engine and the base image (bwrap only).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-.venv/bin/python}"
DOCKERD_LOG="${SKILL2ENV_DOCKERD_LOG:-/var/log/skill2env-dockerd.log}"
skip_docker="${SKILL2ENV_SKIP_DOCKER:-0}"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n "$@"
  else echo "setup-sandbox: '$*' needs root; run this script as root" >&2; return 1
  fi
}

missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
# The world kits' tests run reference solvers on the host too: OCR and PDF tools, as in the base image.
command -v tesseract >/dev/null || missing+=(tesseract-ocr)
command -v pdftotext >/dev/null || missing+=(poppler-utils)
# So do the bundled skills' script tests: junit-triage's xmlstarlet (the skill declares it for its image).
command -v xmlstarlet >/dev/null || missing+=(xmlstarlet)
# The UI tests drive the Dagster UI in Debian's Chromium through Playwright (tests/integration/ui/).
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-dejavu-core)
if [ "$skip_docker" != 1 ]; then
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  # A local registry: the tests push the base image and export tasks that name it by digest.
  command -v docker-registry >/dev/null || missing+=(docker-registry)
  command -v docker-compose >/dev/null || missing+=(docker-compose)
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-sandbox: installing ${missing[*]}"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "$skip_docker" = 1 ]; then
  echo "setup-sandbox: SKILL2ENV_SKIP_DOCKER=1: no engine, no base image"
  exit 0
fi

if ! docker_ok=$("$PYTHON" -c 'from skill2env.sandbox.engine import engine_reachable; print(engine_reachable())') \
   || [ "$docker_ok" != True ]; then
  echo "setup-sandbox: starting dockerd (log: $DOCKERD_LOG)"
  as_root mkdir -p "$(dirname "$DOCKERD_LOG")"
  as_root sh -c "nohup setsid dockerd >>'$DOCKERD_LOG' 2>&1 </dev/null &"
  for _ in $(seq 1 120); do
    if [ "$("$PYTHON" -c 'from skill2env.sandbox.engine import engine_reachable; print(engine_reachable())')" = True ]; then
      break
    fi
    sleep 0.5
  done
fi

"$PYTHON" -m skill2env.sandbox.cli build-base --no-start-engine
