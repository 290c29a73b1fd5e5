# aces-ci as a container: the static tier and the API-backed live tier.
# The embedded local model (extra "local") is left out: it compiles llama.cpp and is meant for keyless local runs.
FROM python:3.11-slim

# bash: `bash -n` syntax checks of skill shell scripts; git: repository context for reports.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash git \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/aces-ci
COPY pyproject.toml README.md ./
COPY aces_ci ./aces_ci
COPY schemas ./schemas
RUN pip install --no-cache-dir .

WORKDIR /github/workspace
ENTRYPOINT ["aces-ci"]
CMD ["scan", "."]
