# aces-ci as a container: the static tier and the API-backed live tier, run as an unprivileged user.
# The embedded local model (extra "local") is left out: it is meant for keyless local runs.
# Build steps are plain shell (scripts/docker-build.sh) so tests can run them without a Docker engine.
FROM python:3.11-slim

# bash: `bash -n` syntax checks of skill shell scripts; git: changed skills and repository context.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash git \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/aces-ci
COPY pyproject.toml README.md ./
COPY aces_ci ./aces_ci
COPY schemas ./schemas
COPY scripts/docker-build.sh ./scripts/docker-build.sh
RUN ACES_SOURCE=/opt/aces-ci ACES_PREFIX=/opt/aces-ci/venv bash scripts/docker-build.sh

USER aces
ENV PATH="/opt/aces-ci/venv/bin:$PATH" PYTHONDONTWRITEBYTECODE=1
# The checkout is mounted here by `docker run -v` and by GitHub's container actions; git must trust it.
WORKDIR /github/workspace
ENTRYPOINT ["aces-ci"]
CMD ["scan", "."]
