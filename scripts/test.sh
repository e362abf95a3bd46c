#!/usr/bin/env bash
# The test command: set up, lint, type-check, run the default test suite (real redis-server and
# Kafka-compatible broker are started by the tests themselves on free ports).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check deid worker tests bench
.venv/bin/mypy deid worker
.venv/bin/pytest -q "$@"
