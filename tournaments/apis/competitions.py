"""API views of competitions: list and create, detail and edit, entries and their
decisions, announcements, pause and resume, release, and the results as the release
lets the reader see them (docs/competitions.md)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.apis import MAX_ID
from bots.models import Bot
from games import registry
from tournaments.archive.export import archive_for
from tournaments.archive.verify import archive_bytes
from tournaments.models import Announcement, Competition, CompetitionEntry
from tournaments.selectors import competitions as selectors
from tournaments.services import competition_phases
from tournaments.services import competitions as services
from tournaments.services.competitions import MAX_INVITE_CODE


def _choice_messages(serializer: serializers.Serializer, *names: str) -> None:
    for name in names:
        field = serializer.fields[name]
        known = ", ".join(str(value) for value in field.choices)
        field.error_messages["invalid_choice"] = (
            f'There is no {name.replace("_", " ")} "{{input}}": pick one of {known}'
        )


class CompetitionSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", read_only=True)
    final = serializers.PrimaryKeyRelatedField(
        read_only=True,
        allow_null=True,
        help_text="the final tournament's id (/api/tournaments/<id>/), once frozen",
    )
    entrant_count = serializers.SerializerMethodField(
        help_text="accepted entries (in the list; null in a single competition's answer)"
    )
    team_count = serializers.SerializerMethodField(
        help_text="teams (in the list; null in a single competition's answer)"
    )

    class Meta:
        model = Competition
        fields = [
            "id",
            "name",
            "description",
            "organiser",
            "game",
            "players",
            "options",
            "move_ms",
            "bank_ms",
            "opens_at",
            "deadline",
            "final_at",
            "phase",
            "paused",
            "final_settings",
            "final",
            "release",
            "ladder_hidden_from",
            "revealed_at",
            "eligibility",
            "invite_code",
            "division_size",
            "promote",
            "cycle_minutes",
            "cycle",
            "seed",
            "seed_salt",
            "seed_commitment",
            "created_at",
            "frozen_at",
            "closed_at",
            "entrant_count",
            "team_count",
        ]
        read_only_fields = [
            "id",
            "organiser",
            "phase",
            "paused",
            "final",
            "revealed_at",
            "cycle",
            "seed_salt",
            "seed_commitment",
            "created_at",
            "frozen_at",
            "closed_at",
        ]
        extra_kwargs = {
            "players": {
                "required": False,
                "allow_null": True,
                "help_text": "seats at each table (default: the game's least)",
            },
            "options": {"required": False},
            "opens_at": {
                "required": False,
                "help_text": "when the ladder starts (default: now); bots may enter before",
            },
            "deadline": {
                "help_text": "entries close and each entry's version freezes: its last valid "
                "version uploaded before this time counts"
            },
            "final_at": {"help_text": "when the final tournament starts"},
            "final_settings": {
                "required": False,
                "help_text": "the final tournament's settings: format, games_per_pairing, "
                "rotate_seats, rounds, advance, third_place, grand_final_reset, "
                "record_visibility, and challengers (a gauntlet's count, from the top)",
            },
            "release": {
                "help_text": "who sees the final's results (and the ladder's from "
                "ladder_hidden_from): hidden (the organiser and staff), participants, public"
            },
            "ladder_hidden_from": {
                "help_text": "from this time the ladder's results are held back like the "
                "final's; null: the ladder is always public"
            },
            "seed_salt": {"allow_null": True, "help_text": "null while the seed is"},
            "invite_code": {
                "allow_null": True,
                "help_text": "invite eligibility: the code an entrant gives; shown only to "
                "the organiser",
            },
            "division_size": {
                "help_text": "entrants per division of the ladder; null: one table for all"
            },
            "promote": {"help_text": "how many move up (and down) between divisions a cycle"},
            "seed": {
                "required": False,
                "allow_null": True,
                "help_text": "the ladder's deals derive from it; null for all but the "
                "organiser until the competition closes",
            },
            "seed_commitment": {"help_text": "SHA-256 of seed_salt, a colon and the seed"},
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _choice_messages(self, "release", "eligibility")

    def get_entrant_count(self, competition) -> int | None:
        return getattr(competition, "entrant_count", None)

    def get_team_count(self, competition) -> int | None:
        return getattr(competition, "team_count", None)

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("options must be an object of option name to value")
        return value

    def validate_final_settings(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError('final_settings must be an object: {"format": ...}')
        return value

    def to_representation(self, competition):
        data = super().to_representation(competition)
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if not selectors.seed_shown(competition=competition, user=user):
            data["seed"] = None
            data["seed_salt"] = None
        if not selectors.may_organise(competition=competition, user=user):
            data["invite_code"] = None
        return data


class NextDateSerializer(serializers.Serializer):
    event = serializers.ChoiceField(choices=["opens", "deadline", "final"])
    at = serializers.DateTimeField()


class FinalStateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


class TeamRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class AnnouncementSerializer(serializers.ModelSerializer):
    class Meta:
        model = Announcement
        fields = ["id", "text", "created_at"]
        read_only_fields = ["id", "created_at"]


class CompetitionDetailSerializer(CompetitionSerializer):
    may_organise = serializers.SerializerMethodField()
    is_participant = serializers.SerializerMethodField()
    results_visible = serializers.SerializerMethodField(
        help_text="whether you see the results the release holds back"
    )
    next = serializers.SerializerMethodField(help_text="the next date and what happens then")
    final_state = serializers.SerializerMethodField()
    team = serializers.SerializerMethodField(help_text="your team in this competition, if any")
    announcements = serializers.SerializerMethodField()

    class Meta(CompetitionSerializer.Meta):
        fields = CompetitionSerializer.Meta.fields + [
            "may_organise",
            "is_participant",
            "results_visible",
            "next",
            "final_state",
            "team",
            "announcements",
        ]

    def _detail(self, competition) -> dict:
        if not hasattr(competition, "_detail"):
            request = self.context.get("request")
            competition._detail = selectors.competition_detail(
                competition=competition, user=getattr(request, "user", None)
            )
        return competition._detail

    def get_may_organise(self, competition) -> bool:
        return self._detail(competition)["may_organise"]

    def get_is_participant(self, competition) -> bool:
        return self._detail(competition)["is_participant"]

    def get_results_visible(self, competition) -> bool:
        return self._detail(competition)["results_visible"]

    @extend_schema_field(NextDateSerializer(allow_null=True))
    def get_next(self, competition) -> dict | None:
        return self._detail(competition)["next"]

    @extend_schema_field(FinalStateSerializer(allow_null=True))
    def get_final_state(self, competition) -> dict | None:
        return self._detail(competition)["final"]

    @extend_schema_field(TeamRefSerializer(allow_null=True))
    def get_team(self, competition) -> dict | None:
        return self._detail(competition)["team"]

    @extend_schema_field(AnnouncementSerializer(many=True))
    def get_announcements(self, competition) -> list[dict]:
        rows = selectors.competition_announcements(competition=competition)[:20]
        return AnnouncementSerializer(rows, many=True).data


class EntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    owner = serializers.CharField()
    team = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=CompetitionEntry.Status.choices)
    reason = serializers.CharField(help_text="why refused or disqualified; public")
    division = serializers.IntegerField(allow_null=True, help_text="1 is the top division")
    frozen_version = serializers.IntegerField(
        allow_null=True, help_text="the number of the version that counts, once frozen"
    )
    created_at = serializers.DateTimeField()


def id_field(**kwargs) -> serializers.IntegerField:
    """An id: a whole number a bigint column can hold (a bigger one could only fail there)."""
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class EnterSerializer(serializers.Serializer):
    bot = id_field(help_text="the id of a bot you own (or your team's)")
    invite_code = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=MAX_INVITE_CODE
    )
    team = id_field(
        required=False, allow_null=True, help_text="the id of your team that owns the bot"
    )


class DecideSerializer(serializers.Serializer):
    accept = serializers.BooleanField()
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000, help_text="why; everyone reads it")


class ReleaseSerializer(serializers.Serializer):
    release = serializers.ChoiceField(choices=Competition.Release.choices)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _choice_messages(self, "release")


class ResultsSerializer(serializers.Serializer):
    hidden = serializers.BooleanField(help_text="true: held back from you by the release")
    note = serializers.CharField()
    divisions = serializers.JSONField(help_text="each division's table, top division first")
    standings = serializers.JSONField(help_text="every entrant, division first, best first")


class ListQuery(serializers.Serializer):
    phase = serializers.ChoiceField(
        choices=Competition.Phase.choices, required=False, help_text="only those in this phase"
    )
    game = serializers.ChoiceField(
        choices=[(slug, slug) for slug in registry.slugs()],
        required=False,
        help_text="only those of this game (a slug)",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _choice_messages(self, "phase", "game")


def competition_or_404(pk: int) -> Competition:
    return get_object_or_404(Competition.objects.select_related("organiser", "final"), pk=pk)


def _organised(request, pk: int) -> Competition:
    competition = competition_or_404(pk)
    if not selectors.may_organise(competition=competition, user=request.user):
        raise PermissionDenied("only the competition's organiser may do this")
    return competition


def _detail(request, competition: Competition, code: int = status.HTTP_200_OK) -> Response:
    competition.refresh_from_db()
    data = CompetitionDetailSerializer(competition, context={"request": request}).data
    return Response(data, status=code)


class CompetitionListCreateApi(generics.ListAPIView):
    """Every competition, newest opening first, a page at a time (keyset: arena.pagination);
    signed in, create one (you organise it)."""

    serializer_class = CompetitionSerializer
    keyset_ordering = ("-opens_at", "-id")
    throttle_scope = "tournaments"

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    def get_queryset(self):
        query = ListQuery(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        rows = selectors.competition_list(user=self.request.user)
        if phase := query.validated_data.get("phase"):
            rows = rows.filter(phase=phase)
        if game := query.validated_data.get("game"):
            rows = rows.filter(game=game)
        return rows

    @extend_schema(parameters=[ListQuery])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=CompetitionSerializer, responses={201: CompetitionDetailSerializer})
    def post(self, request):
        data = CompetitionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        competition = services.create_competition(
            organiser=request.user,
            name=fields.pop("name"),
            game=fields.pop("game"),
            players=fields.pop("players", None),
            options=fields.pop("options", None),
            opens_at=fields.pop("opens_at", None),
            deadline=fields.pop("deadline"),
            final_at=fields.pop("final_at"),
            final_settings=fields.pop("final_settings", None),
            **fields,
        )
        return _detail(request, competition, status.HTTP_201_CREATED)


class CompetitionDetailApi(APIView):
    """A competition; its organiser may change it (PATCH) as the phase allows."""

    @extend_schema(responses=CompetitionDetailSerializer)
    def get(self, request, pk):
        return _detail(request, competition_or_404(pk))

    @extend_schema(request=CompetitionSerializer, responses=CompetitionDetailSerializer)
    def patch(self, request, pk):
        competition = _organised(request, pk)
        data = CompetitionSerializer(competition, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        changes.pop("seed", None)  # committed at creation: it never changes
        competition = services.update_competition(competition=competition, **changes)
        return _detail(request, competition)


class CompetitionEntriesApi(APIView):
    """The entrants (pending and refused ones only to the organiser and their own
    entrant); signed in, enter a bot you own or your team owns."""

    @extend_schema(responses=EntrySerializer(many=True))
    def get(self, request, pk):
        rows = selectors.competition_entrants(competition=competition_or_404(pk), user=request.user)
        return Response(EntrySerializer(rows, many=True).data)

    @extend_schema(request=EnterSerializer, responses={201: EntrySerializer})
    def post(self, request, pk):
        competition = competition_or_404(pk)
        data = EnterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        bot = Bot.objects.filter(pk=fields["bot"]).first()
        if bot is None:
            raise serializers.ValidationError({"bot": [f"There is no bot with id {fields['bot']}"]})
        team = None
        if fields.get("team") is not None:
            team = selectors.team_of(competition=competition, team_id=fields["team"])
            if team is None:
                raise serializers.ValidationError({"team": ["There is no such team here"]})
        entry = services.enter_competition(
            competition=competition,
            bot=bot,
            user=request.user,
            invite_code=fields["invite_code"],
            team=team,
        )
        rows = selectors.competition_entrants(competition=competition, user=request.user)
        row = next(r for r in rows if r["id"] == entry.pk)
        return Response(EntrySerializer(row).data, status=status.HTTP_201_CREATED)


def _entry(competition: Competition, entry_id: int) -> CompetitionEntry:
    return get_object_or_404(CompetitionEntry, pk=entry_id, competition=competition)


def _entry_answer(request, competition: Competition, entry: CompetitionEntry) -> Response:
    rows = selectors.competition_entrants(competition=competition, user=request.user)
    return Response(EntrySerializer(next(r for r in rows if r["id"] == entry.pk)).data)


class CompetitionEntryDecideApi(APIView):
    """The organiser accepts or refuses a pending entry (an approval competition's)."""

    @extend_schema(request=DecideSerializer, responses=EntrySerializer)
    def post(self, request, pk, entry_id):
        competition = _organised(request, pk)
        entry = _entry(competition, entry_id)
        data = DecideSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.decide_entry(entry=entry, **data.validated_data)
        return _entry_answer(request, competition, entry)


class CompetitionEntryDisqualifyApi(APIView):
    """The organiser disqualifies an entry, with a public reason: its matches stay, it
    leaves the standings and the final."""

    @extend_schema(request=ReasonSerializer, responses=EntrySerializer)
    def post(self, request, pk, entry_id):
        competition = _organised(request, pk)
        entry = _entry(competition, entry_id)
        data = ReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.disqualify_entry(entry=entry, reason=data.validated_data["reason"])
        return _entry_answer(request, competition, entry)


class CompetitionPauseApi(APIView):
    """The organiser pauses the competition: no phase changes at their dates, no ladder
    matches queued, the final waits; what is queued still plays."""

    paused = True

    @extend_schema(request=None, responses=CompetitionDetailSerializer)
    def post(self, request, pk):
        competition = _organised(request, pk)
        competition_phases.set_competition_paused(competition=competition, paused=self.paused)
        return _detail(request, competition)


class CompetitionResumeApi(CompetitionPauseApi):
    """The organiser resumes it: a date passed meanwhile takes effect now."""

    paused = False


class CompetitionReleaseApi(APIView):
    """The organiser sets who sees the held-back results."""

    @extend_schema(request=ReleaseSerializer, responses=CompetitionDetailSerializer)
    def post(self, request, pk):
        competition = _organised(request, pk)
        data = ReleaseSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.set_release(competition=competition, release=data.validated_data["release"])
        return _detail(request, competition)


class CompetitionRevealApi(APIView):
    """The organiser reveals every result to everyone, in one step."""

    @extend_schema(request=None, responses=CompetitionDetailSerializer)
    def post(self, request, pk):
        competition = _organised(request, pk)
        services.reveal_results(competition=competition)
        return _detail(request, competition)


class CompetitionAnnouncementsApi(APIView):
    """The organiser's announcements, newest first; the organiser posts one."""

    @extend_schema(responses=AnnouncementSerializer(many=True))
    def get(self, request, pk):
        rows = selectors.competition_announcements(competition=competition_or_404(pk))
        return Response(AnnouncementSerializer(rows, many=True).data)

    @extend_schema(request=AnnouncementSerializer, responses={201: AnnouncementSerializer})
    def post(self, request, pk):
        competition = _organised(request, pk)
        data = AnnouncementSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = services.announce(competition=competition, text=data.validated_data["text"])
        return Response(AnnouncementSerializer(row).data, status=status.HTTP_201_CREATED)


class CompetitionResultsApi(APIView):
    """The ladder's division tables and the overall standings, unless the release holds
    them back from you (then ``hidden`` and empty lists). The final's own standings and
    bracket are its tournament's (``final``)."""

    @extend_schema(responses=ResultsSerializer)
    def get(self, request, pk):
        competition = competition_or_404(pk)
        data = selectors.competition_results(competition=competition, user=request.user)
        return Response(ResultsSerializer(data).data)


class CompetitionArchiveApi(APIView):
    """The competition's archive (docs/archive.md), gzip-compressed JSON: once it has closed
    and its results are released to you; ``manage.py verify_competition`` checks it."""

    @extend_schema(
        responses={
            (200, "application/gzip"): OpenApiResponse(
                response=bytes, description="the archive as one gzip-compressed JSON document"
            ),
            404: OpenApiResponse(
                description="no such competition, or it has not closed, or its results are "
                "not released to you"
            ),
        }
    )
    def get(self, request, pk):
        competition = competition_or_404(pk)
        archive = archive_for(competition=competition, user=request.user)
        if archive is None:
            raise NotFound(
                "the archive is offered once the competition has closed and its results are "
                "released to you"
            )
        response = HttpResponse(
            archive_bytes(archive, packed=True), content_type="application/gzip"
        )
        response["Content-Disposition"] = content_disposition_header(
            as_attachment=True, filename=f"competition-{competition.pk}-archive.json.gz"
        )
        return response
