from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # bots cannot import tournaments (layers): the gate hangs on bots' hook.
        from bots import hooks
        from tournaments.leaderboards import after_bot_change
        from tournaments.services.gating import start_gate_after_activation

        hooks.on_version_active(start_gate_after_activation)
        # The leaderboard rows follow the bot's current version in the same transaction.
        hooks.on_bot_changed(after_bot_change)
