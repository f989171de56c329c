from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from arena import api, health, metrics
from arena.dashboard.forms import ThrottledAdminLoginForm
from arena.dashboard.views.matches import MatchFramesApi
from arena.integrations import apis as integration_apis
from bots import apis as bot_apis
from tournaments import apis
from tournaments.apis import competition_teams, competitions, exports


def _exports(route: str, view, name: str) -> list:
    """``route.csv`` and ``route.json``: one table as a spreadsheet or as JSON."""
    return [
        path(f"{route}.{fmt}", exports.export_view(view, fmt), name=f"{name}-{fmt}")
        for fmt in ("csv", "json")
    ]


def _api(route: str, view, name: str):
    return path(route, view.as_view(), name=name)


api_patterns = [
    _api("", api.ApiRoot, "api-root"),
    _api("games/", api.GameListApi, "api-games"),
    _api("games/<str:slug>/", api.GameDetailApi, "api-game"),
    _api("auth/register/", api.RegisterApi, "api-register"),
    _api("auth/token/", api.TokenApi, "api-token"),
    # The bots' reads are stored for anonymous readers by the layer that holds the cache.
    _api("bots/", apis.BotListCreateApi, "api-bots"),
    _api("bots/<int:pk>/", apis.BotDetailApi, "api-bot"),
    _api("bots/<int:pk>/versions/", apis.BotVersionsApi, "api-bot-versions"),
    _api("bots/<int:pk>/ratings/", apis.BotRatingsApi, "api-bot-ratings"),
    _api("bots/<int:pk>/gating/", apis.BotGatingApi, "api-bot-gating"),
    _api("head-to-head/", apis.HeadToHeadApi, "api-head-to-head"),
    _api("versions/<int:pk>/", apis.VersionDetailApi, "api-version"),
    _api("versions/<int:pk>/source/", bot_apis.VersionSourceApi, "api-version-source"),
    _api("tournaments/", apis.TournamentListCreateApi, "api-tournaments"),
    _api("tournaments/<int:pk>/", apis.TournamentDetailApi, "api-tournament"),
    _api("tournaments/<int:pk>/cancel/", apis.TournamentCancelApi, "api-tournament-cancel"),
    _api("tournaments/<int:pk>/matches/", apis.TournamentMatchesApi, "api-tournament-matches"),
    _api("matches/<int:pk>/", apis.MatchDetailApi, "api-match"),
    _api("challenges/", apis.ChallengeListCreateApi, "api-challenges"),
    _api("bots/<int:pk>/challenges/", apis.BotChallengesApi, "api-bot-challenges"),
    _api("challenges/<int:pk>/", apis.ChallengeDetailApi, "api-challenge"),
    _api("challenges/<int:pk>/accept/", apis.ChallengeAcceptApi, "api-challenge-accept"),
    _api("challenges/<int:pk>/decline/", apis.ChallengeDeclineApi, "api-challenge-decline"),
    _api("challenges/<int:pk>/cancel/", apis.ChallengeCancelApi, "api-challenge-cancel"),
    _api("challenges/<int:pk>/again/", apis.ChallengeAgainApi, "api-challenge-again"),
    _api("human-games/", apis.HumanGameListCreateApi, "api-human-games"),
    _api("human-games/<int:pk>/", apis.HumanGameDetailApi, "api-human-game"),
    _api("human-games/<int:pk>/act/", apis.HumanGameActApi, "api-human-game-act"),
    _api("human-games/<int:pk>/resign/", apis.HumanGameResignApi, "api-human-game-resign"),
    _api("human-games/<int:pk>/rematch/", apis.HumanGameRematchApi, "api-human-game-rematch"),
    _api("ladders/", apis.LadderListApi, "api-ladders"),
    _api("ladders/<int:pk>/", apis.LadderDetailApi, "api-ladder"),
    _api("ladders/<int:pk>/matches/", apis.LadderMatchesApi, "api-ladder-matches"),
    _api("ladders/<int:pk>/pause/", apis.LadderPauseApi, "api-ladder-pause"),
    _api("ladders/<int:pk>/resume/", apis.LadderResumeApi, "api-ladder-resume"),
    _api("matches/<int:pk>/seats/<int:seat>/log/", apis.SeatLogApi, "api-match-seat-log"),
    _api("matches/<int:pk>/replay/", apis.MatchReplayApi, "api-match-replay"),
    _api("matches/<int:pk>/frames/", MatchFramesApi, "api-match-frames"),
    _api("leaderboards/<str:game>/", apis.LeaderboardApi, "api-leaderboard"),
    _api("competitions/", competitions.CompetitionListCreateApi, "api-competitions"),
    _api("competitions/<int:pk>/", competitions.CompetitionDetailApi, "api-competition"),
    _api(
        "competitions/<int:pk>/entries/",
        competitions.CompetitionEntriesApi,
        "api-competition-entries",
    ),
    _api(
        "competitions/<int:pk>/entries/<int:entry_id>/decide/",
        competitions.CompetitionEntryDecideApi,
        "api-competition-entry-decide",
    ),
    _api(
        "competitions/<int:pk>/entries/<int:entry_id>/disqualify/",
        competitions.CompetitionEntryDisqualifyApi,
        "api-competition-entry-disqualify",
    ),
    _api("competitions/<int:pk>/pause/", competitions.CompetitionPauseApi, "api-competition-pause"),
    _api(
        "competitions/<int:pk>/resume/", competitions.CompetitionResumeApi, "api-competition-resume"
    ),
    _api(
        "competitions/<int:pk>/release/",
        competitions.CompetitionReleaseApi,
        "api-competition-release",
    ),
    _api(
        "competitions/<int:pk>/reveal/", competitions.CompetitionRevealApi, "api-competition-reveal"
    ),
    _api(
        "competitions/<int:pk>/announcements/",
        competitions.CompetitionAnnouncementsApi,
        "api-competition-announcements",
    ),
    _api(
        "competitions/<int:pk>/archive/",
        competitions.CompetitionArchiveApi,
        "api-competition-archive",
    ),
    _api(
        "competitions/<int:pk>/results/",
        competitions.CompetitionResultsApi,
        "api-competition-results",
    ),
    _api(
        "competitions/<int:pk>/teams/",
        competition_teams.CompetitionTeamsApi,
        "api-competition-teams",
    ),
    _api(
        "competitions/<int:pk>/teams/<int:team_id>/members/",
        competition_teams.CompetitionTeamMembersApi,
        "api-competition-team-members",
    ),
    _api(
        "competitions/<int:pk>/teams/<int:team_id>/members/<str:username>/",
        competition_teams.CompetitionTeamMemberApi,
        "api-competition-team-member",
    ),
    _api(
        "competitions/<int:pk>/teams/<int:team_id>/bots/",
        competition_teams.CompetitionTeamBotsApi,
        "api-competition-team-bots",
    ),
    _api("tokens/", integration_apis.TokenListCreateApi, "api-tokens"),
    _api("tokens/<int:pk>/", integration_apis.TokenRevokeApi, "api-token-detail"),
    _api("notifications/", integration_apis.NotificationListApi, "api-notifications"),
    _api("notifications/read/", integration_apis.NotificationReadApi, "api-notifications-read"),
    _api("notifications/channels/", integration_apis.ChannelListApi, "api-channels"),
    _api("notifications/channels/<str:kind>/", integration_apis.ChannelDetailApi, "api-channel"),
    _api("webhooks/", integration_apis.WebhookListCreateApi, "api-webhooks"),
    _api("webhooks/<int:pk>/", integration_apis.WebhookDetailApi, "api-webhook"),
    _api("webhooks/<int:pk>/test/", integration_apis.WebhookTestApi, "api-webhook-test"),
    _api("webhooks/<int:pk>/enable/", integration_apis.WebhookEnableApi, "api-webhook-enable"),
    *_exports("tournaments/<int:pk>/standings", exports.TournamentStandingsExport, "api-standings"),
    *_exports(
        "tournaments/<int:pk>/crosstable", exports.TournamentCrosstableExport, "api-crosstable"
    ),
    *_exports(
        "tournaments/<int:pk>/matches",
        exports.TournamentMatchesExport,
        "api-tournament-matches-export",
    ),
    *_exports("ladders/<int:pk>/matches", exports.LadderMatchesExport, "api-ladder-matches-export"),
    *_exports("bots/<int:pk>/ratings", exports.BotRatingsExport, "api-bot-ratings-export"),
    _api("schema/", SpectacularAPIView, "api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

admin.site.login_form = ThrottledAdminLoginForm

urlpatterns = [
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("account/", include("arena.integrations.urls")),
    path("", include("arena.dashboard.urls")),
]

# Under /api/ Django's own error answers take the API's JSON shape too.
handler400 = "arena.errors.bad_request"
handler403 = "arena.errors.permission_denied"
handler404 = "arena.errors.page_not_found"
handler500 = "arena.errors.server_error"
