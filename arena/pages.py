from django.contrib.auth import views as auth_views
from django.urls import path

from arena import account_views, rating_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:slug>/", rating_views.leaderboard, name="leaderboard"),
    path("games/<str:slug>/head-to-head/", rating_views.head_to_head, name="head-to-head"),
    path("games/<str:slug>/bot-names/", views.bot_names, name="bot-names"),
    path("games/<str:slug>/rules/", views.rules, name="rules"),
    path("bots/", views.bot_list, name="bots"),
    path("bots/new/", views.bot_new, name="bot-new"),
    path("bots/<int:pk>/", views.bot_detail, name="bot"),
    path("bots/<int:pk>/upload/", views.bot_upload, name="bot-upload"),
    path("bots/<int:pk>/entries/", views.bot_entries, name="bot-entries"),
    path("bots/<int:pk>/gating/", rating_views.bot_gating, name="bot-gating"),
    path("bots/<int:pk>/current/", views.bot_current, name="bot-current"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament-new"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament"),
    path("tournaments/<int:pk>/live/", views.tournament_live, name="tournament-live"),
    path("tournaments/<int:pk>/cancel/", views.tournament_cancel, name="tournament-cancel"),
    path("matches/<int:pk>/", views.match_detail, name="match"),
    path("ladders/", views.ladder_list, name="ladders"),
    path("ladders/<int:pk>/", views.ladder_detail, name="ladder"),
    path("ladders/<int:pk>/live/", views.ladder_live, name="ladder-live"),
    path("signup/", account_views.signup, name="signup"),
    path("login/", account_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
