#!/usr/bin/env bash
# The main job on an embedded default: sets up, then starts a local Kafka-compatible broker,
# a local redis-server, the de-identification worker and a producer of sample French notes,
# and prints the de-identified notes as they arrive. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/deid demo "$@"
