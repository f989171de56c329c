from django.contrib import admin

from arena.integrations.models import ApiToken, Notification, Webhook, WebhookDelivery


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Every account's tokens (never their keys: only hashes are kept)."""

    list_display = ["name", "user", "prefix", "scopes", "created_at", "expires_at"]
    list_display += ["last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["prefix", "key_hash", "created_at", "last_used_at"]
    actions = ["revoke"]

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        from arena.integrations.services import revoke_token

        for token in queryset:
            revoke_token(token=token)


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ["url", "user", "tournament", "format", "active", "failures", "created_at"]
    list_filter = ["active", "format"]
    exclude = ["secret"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["webhook", "kind", "status", "attempts", "status_code", "attempted_at"]
    list_filter = ["status", "kind"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["user", "kind", "text", "created_at", "read_at"]
    list_filter = ["kind"]
