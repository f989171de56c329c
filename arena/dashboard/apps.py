from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The server-rendered pages: their templates, static files and template tags."""

    name = "arena.dashboard"
    label = "dashboard"

    def ready(self) -> None:
        from arena.dashboard import frames
        from tournaments.read_models import replays

        # The stored replays keep the viewer's frames and the page's text log too
        # (tournaments cannot build them).
        for part in frames.STORED_PARTS:
            replays.register_part(part)
