"""Staff's view of bots and versions; writes go through bots.services."""

from __future__ import annotations

from django.contrib import admin, messages

from bots import services
from bots.models import Bot, BotVersion


class VersionInline(admin.TabularInline):
    model = BotVersion
    fields = ["number", "filename", "size", "status", "reason", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-number"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["name", "game", "owner", "accepts_entries", "created_at"]
    list_filter = ["game", "accepts_entries", "created_at"]
    search_fields = ["name", "owner__username", "description"]
    list_select_related = ["owner"]
    readonly_fields = ["owner", "game", "created_at"]
    inlines = [VersionInline]
    actions = ["disable"]

    @admin.action(description="Disable the selected bots (their versions leave play)")
    def disable(self, request, queryset):
        reason = f"disabled by staff ({request.user.get_username()})"
        changed = sum(services.disable_bot(bot=bot, reason=reason) for bot in queryset)
        self.message_user(
            request,
            f"{queryset.count()} bot(s) disabled; {changed} version(s) taken out of play.",
            messages.SUCCESS,
        )


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ["__str__", "status", "size", "attempts", "created_at", "validated_at"]
    list_filter = ["status", "kind", "bot__game", "created_at"]
    search_fields = ["bot__name", "sha256", "reason"]
    list_select_related = ["bot"]
    # The upload is a blob: never shown or edited here (the owner downloads it via the API).
    exclude = ["upload"]
    readonly_fields = [
        "bot",
        "number",
        "filename",
        "kind",
        "sha256",
        "size",
        "status",
        "reason",
        "attempts",
        "created_at",
        "queued_at",
        "validated_at",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("upload")

    def has_add_permission(self, request):
        return False
