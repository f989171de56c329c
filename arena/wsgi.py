import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
application = get_wsgi_application()


def freeze_start_up() -> None:
    """Load what every request needs, then move everything loaded so far out of the
    garbage collector's passes (``gc.freeze``). Start-up's objects (modules, classes, the
    URLconf, DRF's and the templates' machinery: over 100,000) live as long as the process,
    yet each full collection walks them all, far longer than a stored read takes
    (bench/README.md). After this a collection walks only what requests left."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view and serializer
    gc.collect()
    gc.freeze()


freeze_start_up()
