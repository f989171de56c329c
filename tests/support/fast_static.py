"""WhiteNoise's table of static files built once per test process, not once per test client.

Each Django test client builds its own middleware at its first request, and WhiteNoise's
(``WHITENOISE_USE_FINDERS``) then lists every app's static folder and works out each file's
headers: some 15 ms of CPU, paid by every test that makes a request through a client. A
server process builds the table once, at start-up; so does a test process here, once for
each set of settings that shape it. The files and their headers are the same as the first
build found them, as a running server's are; each client still gets a middleware of its own.
"""

from __future__ import annotations

from django.conf import settings
from whitenoise.middleware import WhiteNoiseMiddleware

_django_add_files_from_finders = WhiteNoiseMiddleware.add_files_from_finders
# What the table depends on: the settings of the finders, the static URL and WhiteNoise's own.
SHAPING = (
    "DEBUG", "STATIC_URL", "STATIC_ROOT", "FORCE_SCRIPT_NAME", "INSTALLED_APPS",
    "STATICFILES_DIRS", "STATICFILES_FINDERS", "STATICFILES_STORAGE", "STORAGES",
)  # fmt: skip
_tables: dict[str, dict] = {}


def _shape() -> str:
    names = [*SHAPING, *(name for name in dir(settings) if name.startswith("WHITENOISE_"))]
    return repr([(name, getattr(settings, name, None)) for name in names])


def _add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
    shape = _shape()
    table = _tables.get(shape)
    if table is None:
        before = dict(self.files)
        _django_add_files_from_finders(self)
        table = {url: file for url, file in self.files.items() if before.get(url) is not file}
        _tables[shape] = table
    else:
        self.files.update(table)


def install() -> None:
    WhiteNoiseMiddleware.add_files_from_finders = _add_files_from_finders
