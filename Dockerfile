# One image for web, worker and beat. Bots run under bubblewrap inside it, as the
# unprivileged user below: processes bounded per user namespace (Linux >= 5.14),
# memory per process and by the container (per bot tree where the container's cgroup is
# delegated and writable; the worker's start-up line says which). Settings the worker
# container needs: docker-compose.yml and docs/bots.md, "Running the worker in Docker".
FROM python:3.11-slim-bookworm
# The bots' languages (docs/languages.md): Python, C, C++, JavaScript, Java. The JDK's
# post-install needs the man folder that slim images leave out.
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update && apt-get install -y --no-install-recommends bubblewrap python3 \
       gcc libc6-dev g++ nodejs openjdk-17-jdk-headless \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The sandbox's launcher, built here rather than on a worker's first match
# (bots/sandbox/launcher.py; the image's /tmp is the worker's own).
RUN cc -O2 -Wall -Wextra -Werror -o /usr/local/bin/arena-launch bots/sandbox/launch.c
ENV ARENA_SANDBOX_LAUNCHER=/usr/local/bin/arena-launch
# The engines' C modules (games/native.py), built for this image's Python: the unprivileged
# user below could not build them at first use (builds copied in from the host go first).
RUN python -c 'from games.native import build_all; build_all(rebuild=True)'
# var/metrics exists in the image so a new named volume mounted there is the user's.
RUN useradd --create-home arena && mkdir -p /app/var/metrics && chown -R arena /app/var
USER arena
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["gunicorn", "arena.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]
