#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian/Ubuntu machine: system packages
# (redis-server for the per-patient store), a virtual environment at .venv, torch (CPU wheel
# pinned so that pip does not pull a multi-GB CUDA build), then the project with its dev extra.
set -euo pipefail
cd "$(dirname "$0")/.."

# redis-tools brings redis-cli, which the tests use to create a local Redis Cluster (Sentinel runs
# as `redis-server --sentinel`, no extra package).
# chromium: the audit page's test opens it in a real headless browser (tests/lab/eval/test_audit_html.py).
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1 \
        || ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq redis-server redis-tools >/dev/null
        $SUDO apt-get install -y -qq chromium >/dev/null || echo "setup: chromium not installed; the audit page's browser test will be skipped" >&2
        # the Debian package starts a system-wide server; the project starts its own on free ports
        $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
    else
        echo "setup: redis-server not found and apt-get unavailable; the demo will use the in-memory store" >&2
    fi
fi

PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q "torch==2.13.0"
.venv/bin/pip install -q -e ".[dev]"
