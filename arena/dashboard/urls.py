from django.contrib.auth import views as auth_views
from django.urls import path

from arena.dashboard.views import accounts, bots, challenges, games, matches, ratings, tournaments

urlpatterns = [
    path("", games.home, name="home"),
    path("games/<str:slug>/", ratings.leaderboard, name="leaderboard"),
    path("games/<str:slug>/head-to-head/", ratings.head_to_head, name="head-to-head"),
    path("games/<str:slug>/bot-names/", bots.bot_names, name="bot-names"),
    path("games/<str:slug>/rules/", games.rules, name="rules"),
    path("bots/", bots.bot_list, name="bots"),
    path("bots/new/", bots.bot_new, name="bot-new"),
    path("bots/<int:pk>/", bots.bot_detail, name="bot"),
    path("bots/<int:pk>/upload/", bots.bot_upload, name="bot-upload"),
    path("bots/<int:pk>/entries/", bots.bot_entries, name="bot-entries"),
    path("bots/<int:pk>/gating/", ratings.bot_gating, name="bot-gating"),
    path("bots/<int:pk>/current/", bots.bot_current, name="bot-current"),
    path("bots/<int:pk>/challenge/", challenges.challenge_new, name="challenge-new"),
    path("bots/<int:pk>/challenges/", challenges.bot_challenges, name="bot-challenges"),
    path("challenges/", challenges.challenge_inbox, name="challenge-inbox"),
    path("challenges/pick/", challenges.challenge_pick, name="challenge-pick"),
    path("challenges/<int:pk>/", challenges.challenge_detail, name="challenge"),
    path("challenges/<int:pk>/live/", challenges.challenge_live, name="challenge-live"),
    path("challenges/<int:pk>/again/", challenges.challenge_again, name="challenge-again"),
    path("challenges/<int:pk>/cancel/", challenges.challenge_cancel, name="challenge-cancel"),
    path(
        "challenges/<int:pk>/<str:answer>/",
        challenges.challenge_answer,
        name="challenge-answer",
    ),
    path("tournaments/", tournaments.tournament_list, name="tournaments"),
    path("tournaments/new/", tournaments.tournament_new, name="tournament-new"),
    path("tournaments/<int:pk>/", tournaments.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/live/", tournaments.tournament_live, name="tournament-live"),
    path("tournaments/<int:pk>/cancel/", tournaments.tournament_cancel, name="tournament-cancel"),
    path("matches/<int:pk>/", matches.match_detail, name="match"),
    path("ladders/", tournaments.ladder_list, name="ladders"),
    path("ladders/<int:pk>/", tournaments.ladder_detail, name="ladder"),
    path("ladders/<int:pk>/live/", tournaments.ladder_live, name="ladder-live"),
    path("signup/", accounts.signup, name="signup"),
    path("login/", accounts.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
