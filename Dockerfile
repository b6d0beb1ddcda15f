# A small image: the app and its dependencies on python:3.11-slim, run as a non-root user.
FROM python:3.11-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/app
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install . && useradd --create-home --uid 10001 game && mkdir -p /srv/app/data && chown game /srv/app/data
COPY alembic.ini ./
COPY migrations ./migrations
COPY static ./static
COPY docker/entrypoint.sh /usr/local/bin/entrypoint.sh

USER game
ENV HOST=0.0.0.0 PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/readyz' % os.environ.get('PORT', '8000'), timeout=2)"
ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]
