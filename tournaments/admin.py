"""Staff's view of tournaments and matches; writes go through tournaments.services."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from tournaments import services
from tournaments.models import HostFailure, Match, MatchSeat, Tournament
from tournaments.services.requeue import requeue_failed_match


class ReadOnlyFieldsMixin:
    """Every field shown, none edited: changes go through the services (the actions)."""

    def get_readonly_fields(self, request, obj=None):
        hidden = set(self.exclude or [])
        return [f.name for f in self.model._meta.fields if f.name not in hidden]


def _each(modeladmin, request, queryset, action, done: str) -> None:
    """Run ``action`` on each object; report how many succeeded and why the others did not."""
    ok, refused = 0, []
    for obj in queryset:
        try:
            action(obj)
        except ValidationError as exc:
            refused.append(f"{obj}: {' '.join(exc.messages)}")
        else:
            ok += 1
    if ok:
        modeladmin.message_user(request, f"{ok} {done}.", messages.SUCCESS)
    for line in refused:
        modeladmin.message_user(request, line, messages.WARNING)


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyFieldsMixin, admin.ModelAdmin):
    list_display = ["name", "game", "format", "status", "organiser", "start_at", "rated"]
    list_filter = ["status", "format", "game", "rated", "start_at"]
    search_fields = ["name", "organiser__username"]
    list_select_related = ["organiser"]
    date_hierarchy = "start_at"
    actions = ["cancel"]

    def has_add_permission(self, request):
        return False  # tournaments are created through the dashboard or the API

    @admin.action(description="Cancel the selected tournaments")
    def cancel(self, request, queryset):
        _each(
            self,
            request,
            queryset,
            lambda t: services.cancel_tournament(tournament=t),
            "tournament(s) cancelled",
        )


class SeatInline(admin.TabularInline):
    model = MatchSeat
    fields = ["seat", "version", "score", "rank", "fault"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(ReadOnlyFieldsMixin, admin.ModelAdmin):
    list_display = ["__str__", "tournament", "game", "round", "status", "attempts", "finished_at"]
    list_filter = ["status", "game", "finished_at"]
    search_fields = ["=id", "tournament__name", "error"]
    list_select_related = ["tournament"]
    # The move list and record can be megabytes: the API and the replay page show them.
    exclude = ["moves", "record"]
    inlines = [SeatInline]
    actions = ["requeue"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("moves", "record")

    def has_add_permission(self, request):
        return False

    @admin.action(description="Queue the selected failed matches again")
    def requeue(self, request, queryset):
        _each(
            self,
            request,
            queryset,
            lambda m: requeue_failed_match(match=m),
            "match(es) queued again",
        )


@admin.register(HostFailure)
class HostFailureAdmin(ReadOnlyFieldsMixin, admin.ModelAdmin):
    """Read only: the record of attempts the host could not play (workers write it)."""

    list_display = ["failed_at", "match", "attempt", "worker", "error"]
    list_filter = ["failed_at", "worker"]
    search_fields = ["=match__id", "worker", "error"]
    list_select_related = ["match"]
    raw_id_fields = ["match"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
