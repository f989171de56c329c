from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # bots cannot import tournaments (layers): the gate hangs on bots' hook.
        from bots import hooks
        from tournaments.read_models.leaderboard_rows import after_bot_change
        from tournaments.services.gating import start_gate_after_activation
        from tournaments.services.ladder import pull_matches_of_benched_versions

        hooks.on_version_active(start_gate_after_activation)
        # The leaderboard rows follow the bot's current version in the same transaction.
        hooks.on_bot_changed(after_bot_change)
        # A version taken out of play leaves the ladder tables queued for it.
        hooks.on_bot_changed(pull_matches_of_benched_versions)
        self._team_members_manage_team_bots()
        self._stored_reads_follow_renames()

    @staticmethod
    def _team_members_manage_team_bots() -> None:
        # bots cannot import tournaments: a competition's team grants its members its bots.
        from bots import access
        from tournaments.services import teams

        access.register_grant(
            grant=teams.member_may_manage, granted_ids=teams.bots_managed_by_member
        )

    @staticmethod
    def _stored_reads_follow_renames() -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from bots.models import Bot
        from tournaments.readcache import bump_names

        post_save.connect(bump_names, sender=Bot, dispatch_uid="readcache-bot-names")
        post_save.connect(bump_names, sender=get_user_model(), dispatch_uid="readcache-user-names")
        # Answers stored while a competition's results were held back (or shown) go
        # when who may see them changes.
        from tournaments import readcache
        from tournaments.models import Competition

        post_save.connect(
            readcache.forget_after_release_change,
            sender=Competition,
            dispatch_uid="readcache-release",
        )
