from django.urls import path

from arena.integrations import pages

urlpatterns = [
    path("notifications/", pages.inbox, name="inbox"),
    path("notifications/settings/", pages.channel_settings, name="notification-settings"),
    path("tokens/", pages.token_list, name="tokens"),
    path("tokens/<int:pk>/revoke/", pages.token_revoke, name="token-revoke"),
    path("webhooks/", pages.webhook_list, name="webhooks"),
    path("webhooks/<int:pk>/", pages.webhook_detail, name="webhook"),
    path("webhooks/<int:pk>/<str:action>/", pages.webhook_action, name="webhook-action"),
]
