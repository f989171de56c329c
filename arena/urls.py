from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import ObtainAuthToken

from arena import api
from arena.dashboard.forms import ThrottledAdminLoginForm
from arena.dashboard.views.matches import MatchFramesApi
from arena.throttling import LOGIN_THROTTLES
from bots import apis as bot_apis
from tournaments import apis as tournament_apis

api_patterns = [
    path("", api.ApiRoot.as_view(), name="api-root"),
    path("games/", api.GameListApi.as_view(), name="api-games"),
    path("games/<str:slug>/", api.GameDetailApi.as_view(), name="api-game"),
    path("auth/register/", api.RegisterApi.as_view(), name="api-register"),
    path(
        "auth/token/",
        ObtainAuthToken.as_view(throttle_classes=LOGIN_THROTTLES),
        name="api-token",
    ),
    # The bots' reads are stored for anonymous readers by the layer that holds the cache.
    path("bots/", tournament_apis.BotListCreateApi.as_view(), name="api-bots"),
    path("bots/<int:pk>/", tournament_apis.BotDetailApi.as_view(), name="api-bot"),
    path(
        "bots/<int:pk>/versions/",
        tournament_apis.BotVersionsApi.as_view(),
        name="api-bot-versions",
    ),
    path("bots/<int:pk>/ratings/", tournament_apis.BotRatingsApi.as_view(), name="api-bot-ratings"),
    path("bots/<int:pk>/gating/", tournament_apis.BotGatingApi.as_view(), name="api-bot-gating"),
    path("head-to-head/", tournament_apis.HeadToHeadApi.as_view(), name="api-head-to-head"),
    path("versions/<int:pk>/", tournament_apis.VersionDetailApi.as_view(), name="api-version"),
    path(
        "versions/<int:pk>/source/", bot_apis.VersionSourceApi.as_view(), name="api-version-source"
    ),
    path("tournaments/", tournament_apis.TournamentListCreateApi.as_view(), name="api-tournaments"),
    path(
        "tournaments/<int:pk>/",
        tournament_apis.TournamentDetailApi.as_view(),
        name="api-tournament",
    ),
    path(
        "tournaments/<int:pk>/cancel/",
        tournament_apis.TournamentCancelApi.as_view(),
        name="api-tournament-cancel",
    ),
    path(
        "tournaments/<int:pk>/matches/",
        tournament_apis.TournamentMatchesApi.as_view(),
        name="api-tournament-matches",
    ),
    path("matches/<int:pk>/", tournament_apis.MatchDetailApi.as_view(), name="api-match"),
    path("ladders/", tournament_apis.LadderListApi.as_view(), name="api-ladders"),
    path("ladders/<int:pk>/", tournament_apis.LadderDetailApi.as_view(), name="api-ladder"),
    path(
        "ladders/<int:pk>/matches/",
        tournament_apis.LadderMatchesApi.as_view(),
        name="api-ladder-matches",
    ),
    path(
        "ladders/<int:pk>/pause/", tournament_apis.LadderPauseApi.as_view(), name="api-ladder-pause"
    ),
    path(
        "ladders/<int:pk>/resume/",
        tournament_apis.LadderResumeApi.as_view(),
        name="api-ladder-resume",
    ),
    path(
        "matches/<int:pk>/seats/<int:seat>/log/",
        tournament_apis.SeatLogApi.as_view(),
        name="api-match-seat-log",
    ),
    path(
        "matches/<int:pk>/replay/",
        tournament_apis.MatchReplayApi.as_view(),
        name="api-match-replay",
    ),
    path("matches/<int:pk>/frames/", MatchFramesApi.as_view(), name="api-match-frames"),
    path(
        "leaderboards/<str:game>/", tournament_apis.LeaderboardApi.as_view(), name="api-leaderboard"
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

admin.site.login_form = ThrottledAdminLoginForm

urlpatterns = [
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
    path("", include("arena.dashboard.urls")),
]

# Under /api/ Django's own error answers take the API's JSON shape too.
handler400 = "arena.errors.bad_request"
handler403 = "arena.errors.permission_denied"
handler404 = "arena.errors.page_not_found"
handler500 = "arena.errors.server_error"
