"""API views of matches: detail, seat logs, reproduction files and replays."""

from __future__ import annotations

import json

from django.db.models import TextField
from django.db.models.functions import Cast
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from tournaments import readcache, release, selectors, visibility
from tournaments.models import Match, MatchSeat
from tournaments.readcache import marks, replay_answers

# One description of the viewer's seat, for every read that hides what a seat cannot see.
SEAT_PARAMETER = OpenApiParameter(
    "seat",
    {"type": "integer", "minimum": 0},
    description="whose view, 0 to the number of seats less one; omit for a spectator",
)


class SeatSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(
        source="player_name",
        help_text="the bot's name; in a game against people, the person's or built-in bot's",
    )
    bot_id = serializers.IntegerField(source="version.bot_id", allow_null=True)
    version = serializers.IntegerField(source="version.number", allow_null=True)
    player = serializers.ChoiceField(
        source="player_kind",
        choices=["bot", "builtin", "human"],
        help_text="bot: an uploaded bot's version; builtin: a built-in policy; human: a person",
    )

    class Meta:
        model = MatchSeat
        fields = ["seat", "bot", "bot_id", "version", "player", "score", "rank", "fault"]


class ReproduceFileSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bot = serializers.CharField()
    version = serializers.IntegerField()
    file = serializers.CharField(help_text="the file name the commands use for this seat")
    yours = serializers.BooleanField()
    source = serializers.CharField(allow_null=True, help_text="your upload, to download")


class ReproduceSerializer(serializers.Serializer):
    play = serializers.CharField(help_text="plays the same match again, given every seat's file")
    export = serializers.CharField(help_text="saves this match record to a file")
    replay = serializers.CharField(
        help_text="re-runs the saved record with your files and checks every move"
    )
    files = ReproduceFileSerializer(many=True)


_TIMESTAMP = serializers.DateTimeField()
# An id no match has, to find where ids go in the match's API address.
_EXPORT_MARK = 987654321987


def _stamp(value) -> str | None:
    return None if value is None else _TIMESTAMP.to_representation(value)


def _number(value) -> int | None:
    return None if value is None else int(value)


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField(
        help_text="every card of the deal follows from it: null while the record is hidden"
    )
    hidden = serializers.SerializerMethodField(
        help_text="whether the match's hidden information is kept from you (its "
        "tournament's record_visibility): then seed, record and reproduce are null, moves "
        "show only your own seats' actions, and replay and frames give only the spectator's "
        "view and your own seats'"
    )
    reproduce = serializers.SerializerMethodField(
        help_text="the commands that play this match again; null while the record is hidden"
    )
    results_hidden = serializers.SerializerMethodField(
        help_text="whether a competition holds the match's outcome back from you until its "
        "organiser releases it: then result, scores, ranks, faults, moves, record and seed "
        "are null (the match, its seats and its status show)"
    )

    def to_representation(self, match):
        """A list row written out field by field: the generic ModelSerializer walk costs
        most of a page of 50 (the fields and their order are Meta's; a test holds the
        two equal). Subclasses with more fields take the generic walk."""
        if type(self) is not MatchSerializer:
            return self.held_back(match, super().to_representation(match))
        full = self.view(match).full
        seats = [
            {
                "seat": int(seat.seat),
                "bot": str(seat.player_name),
                "bot_id": _number(seat.version.bot_id) if seat.version_id else None,
                "version": _number(seat.version.number) if seat.version_id else None,
                "player": seat.player_kind,
                "score": _number(seat.score),
                "rank": _number(seat.rank),
                "fault": seat.fault,
            }
            for seat in match.seats.all()
        ]
        row = {
            "id": match.pk,
            "tournament": match.tournament_id,
            "ladder": match.ladder_id,
            "round": _number(match.round),
            "number": _number(match.number),
            "series": str(match.series),
            "game": str(match.game),
            "engine_version": _number(match.engine_version),
            "options": match.options,
            "seed": _number(match.seed) if full else None,
            "status": str(match.status),
            "attempts": _number(match.attempts),
            "started_at": _stamp(match.started_at),
            "finished_at": _stamp(match.finished_at),
            "seats": seats,
            "result": match.result,
            "error": str(match.error),
            "hidden": not full,
            "reproduce": self.get_reproduce(match),
            "results_hidden": self.view(match).results_hidden,
        }
        return self.held_back(match, row)

    def held_back(self, match, row: dict) -> dict:
        """``row`` without the match's outcome when a competition holds it back from the
        reader (``tournaments.release``): the match and its seats show, not how it went."""
        if not self.view(match).results_hidden:
            return row
        for seat in row["seats"]:
            seat.update(score=None, rank=None, fault=None)
            seat.update({own: None for own in ("log", "fault_detail") if own in seat})
        row.update(result=None, error="")
        for outcome in ("moves", "record"):
            if outcome in row:
                row[outcome] = None
        return row

    def view(self, match) -> visibility.MatchView:
        """What the reader may see of ``match``: from the context's ``views`` (a page's,
        read at once), else read now."""
        found = self.context.get("views", {}).get(match.pk)
        if found is None:
            request = self.context.get("request")
            user = request.user if request is not None else None
            found = visibility.match_view(match=match, user=user)
            self.context.setdefault("views", {})[match.pk] = found
        return found

    def get_seed(self, match) -> int | None:
        return match.seed if self.view(match).full else None

    def get_hidden(self, match) -> bool:
        return not self.view(match).full

    def get_results_hidden(self, match) -> bool:
        return self.view(match).results_hidden

    @extend_schema_field(ReproduceSerializer(allow_null=True))
    def get_reproduce(self, match) -> dict | None:
        """The commands that play this match again, as the reader can run them."""
        request = self.context.get("request")
        if request is None or not self.view(match).full:
            return None
        return selectors.reproduce(
            match=match, user=request.user, export_url=self.export_url(request, match.pk)
        )

    def export_url(self, request, pk: int) -> str:
        """The match's API address as the reader reaches it: the route reversed once per
        serializer (a page of 50 matches), the id put in."""
        around = self.context.get("export_url")
        if around is None:
            text = request.build_absolute_uri(reverse("api-match", args=[_EXPORT_MARK]))
            around = self.context["export_url"] = text.split(str(_EXPORT_MARK))
        if len(around) != 2 or type(pk) is not int:
            return request.build_absolute_uri(reverse("api-match", args=[pk]))
        return f"{around[0]}{pk}{around[1]}"

    class Meta:
        model = Match
        fields = [
            "id",
            "tournament",
            "ladder",
            "round",
            "number",
            "series",
            "game",
            "engine_version",
            "options",
            "seed",
            "status",
            "attempts",
            "started_at",
            "finished_at",
            "seats",
            "result",
            "error",
            "hidden",
            "reproduce",
            "results_hidden",
        ]


# The matches of one tournament or ladder (``event_model``, its ``pk`` in the URL), for
# anonymous readers stored under the event's mark (``mark_of``), read before the rows. No
# docstring here: each subclass's own is its API description.
class EventMatchesApi(generics.ListAPIView):
    serializer_class = MatchSerializer
    event_model: type
    event_field: str  # the event's keyword of ``selectors.match_list``
    mark_of = None  # the event's ``marks`` reader, keyword ``pk``

    event = None  # the event, when its mark was read from its row

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation: no event
            return Match.objects.none()
        # The event's id is all the list needs of it (and that it exists).
        event = self.event or get_object_or_404(
            self.event_model.objects.only("pk"), pk=self.kwargs["pk"]
        )
        return selectors.match_list(**{self.event_field: event})

    def list(self, request, *args, **kwargs):
        mark = self.mark_of(pk=kwargs["pk"])
        if mark is not None:  # read from the event's row: it exists, no need to look again
            self.event = self.event_model(pk=kwargs["pk"])
        return readcache.api_response(request, self, mark, lambda: self._page_data())

    def _page_data(self):
        rows = selectors.as_rows(self.filter_queryset(self.get_queryset()))
        page = selectors.with_seats(self.paginate_queryset(rows))
        context = self.get_serializer_context()
        context["views"] = visibility.match_views(matches=list(page), user=self.request.user)
        rows = self.get_serializer(page, many=True, context=context).data
        return self.get_paginated_response(rows).data


class DetailSeatSerializer(SeatSerializer):
    log = serializers.SerializerMethodField(
        help_text="what the bot wrote on stderr in this match; null unless you own the bot"
    )
    fault_detail = serializers.SerializerMethodField(
        help_text="what the bot wrote that shows why it faulted (the end of its stderr for "
        "a crash, the line or action it answered); null unless you own the bot"
    )

    class Meta(SeatSerializer.Meta):
        fields = SeatSerializer.Meta.fields + ["log", "fault_detail"]

    def get_log(self, seat) -> str | None:
        return self.context.get("logs", {}).get(seat.seat)

    def get_fault_detail(self, seat) -> str | None:
        return self.context.get("fault_details", {}).get(seat.seat)


class MatchDetailSerializer(MatchSerializer):
    """A match record: enough to play it again (``manage.py replay`` reads this JSON)."""

    seats = DetailSeatSerializer(many=True, read_only=True)
    moves = serializers.ListField(
        child=serializers.DictField(),
        allow_null=True,
        help_text="each step's actions by seat, wall and CPU ms, and the seats played by "
        "default; while the record is hidden, another seat's action is null",
    )
    record = serializers.DictField(
        allow_null=True, help_text="what rebuilds the match; null while it is hidden"
    )

    class Meta(MatchSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["move_ms", "bank_ms", "moves", "record"]


class MatchDetailHeadSerializer(MatchDetailSerializer):
    """The detail without ``moves`` and ``record``, which the view splices in as the JSON
    text PostgreSQL stores (never parsed into Python and serialised again)."""

    class Meta(MatchDetailSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["move_ms", "bank_ms"]


class MatchDetailApi(generics.RetrieveAPIView):
    """A match; a seat's ``log`` only for its bot's owner; ``reproduce`` as the reader runs
    it; ``seed``, ``record`` and the other seats' actions in ``moves`` only when its
    tournament's ``record_visibility`` lets the reader see them (``hidden``)."""

    serializer_class = MatchDetailSerializer

    def get_queryset(self):
        return (
            Match.objects.select_related("tournament")
            .prefetch_related(selectors.public_seats())
            .defer("moves", "record")
            .annotate(
                moves_text=Cast("moves", TextField()), record_text=Cast("record", TextField())
            )
        )

    def retrieve(self, request, *args, **kwargs):
        # A finished match's record never changes: stored for anonymous readers.
        mark = marks.finished_match_mark(pk=kwargs["pk"])
        return readcache.response(request, "api-match", mark, self._fresh)

    def _fresh(self) -> HttpResponse:
        request = self.request
        match = self.get_object()
        view = visibility.match_view(match=match, user=request.user)
        context = {
            "request": request,
            "logs": selectors.seat_logs(match=match, user=request.user),
            "fault_details": selectors.seat_fault_details(match=match, user=request.user),
            "views": {match.pk: view},
        }
        head = JSONRenderer().render(MatchDetailHeadSerializer(match, context=context).data)
        moves = (match.moves_text or "null").encode()
        record = (match.record_text or "null").encode()
        if view.results_hidden:
            moves = record = b"null"
        elif not view.full:
            if match.moves_text:
                seen = visibility.seen_moves(json.loads(match.moves_text), view.seats)
                moves = JSONRenderer().render(seen)
            record = b"null"
        body = b"".join([head[:-1], b',"moves":', moves, b',"record":', record, b"}"])
        return HttpResponse(body, content_type="application/json")


class SeatLogApi(APIView):
    """What one seat's bot wrote on stderr in the match, as text: its owner only."""

    @extend_schema(
        responses={
            (200, "text/plain"): str,
            403: OpenApiResponse(description="signed in, but not the owner of that seat's bot"),
        }
    )
    def get(self, request, pk, seat):
        match = get_object_or_404(Match, pk=pk)
        seat_row = get_object_or_404(
            MatchSeat.objects.select_related("version__bot"), match=match, seat=seat
        )
        if not request.user.is_authenticated:
            raise NotAuthenticated("sign in as the bot's owner to read its log")
        if seat_row.version_id is None or seat_row.version.bot.owner_id != request.user.id:
            raise PermissionDenied("only the bot's owner may read its log")
        if release.match_results_hidden(match=match, user=request.user):
            # What the bot wrote may tell how the match went: held back like its result.
            return HttpResponse(
                f"({release.HIDDEN_NOTE})\n", content_type="text/plain; charset=utf-8"
            )
        return HttpResponse(seat_row.log, content_type="text/plain; charset=utf-8")


def seat_view(request, match: Match, seat_text: str | None, *, players: int):
    """The seat a replay read names (None: a spectator) and what the reader may see of the
    match; a 400 for a seat the match does not have, a 401 or 403 for a seat's view that
    is not the reader's to see (``tournaments.visibility``)."""
    seat = None
    if seat_text is not None:
        try:
            seat = selectors.parse_seat(seat_text, players=players)
        except ValueError as exc:
            raise ValidationError({"seat": [str(exc)]}) from exc
    view = visibility.match_view(match=match, user=request.user)
    if not view.may_take(seat) and not view.results_hidden:
        message = f"seat {seat}'s view of this match is its bot's owner's alone {view.reason}"
        if not request.user.is_authenticated:
            raise NotAuthenticated(message)
        raise PermissionDenied(message)
    return seat, view


class ReplaySerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True, help_text="null: a spectator's view")
    moves = serializers.ListField(
        child=serializers.DictField(),
        help_text="actions, wall and CPU ms per seat, defaults; while the record is hidden "
        "from you, every action but the viewing seat's is null",
    )
    events = serializers.ListField(child=serializers.DictField(), help_text="as that seat saw them")
    results_hidden = serializers.BooleanField(
        required=False,
        help_text="present and true when a competition holds the match's outcome back from "
        "you until its organiser releases it: then moves and events are empty",
    )


def held_replay_body(*, match_pk: int, seat: int | None, **more) -> HttpResponse:
    """A replay read's answer for a reader a competition holds the outcome back from: the
    match exists, nothing of how it went shows (``tournaments.release``)."""
    body = {"match": match_pk, "seat": seat, **more, "results_hidden": True}
    body["detail"] = release.HIDDEN_NOTE
    return HttpResponse(JSONRenderer().render(body), content_type="application/json")


# A replay's moves differ with the whole record and without it: kept under two kinds.
REPLAY_KINDS = {"kind": "replay", "seen_kind": "replay:seen"}
SEAT_REFUSED = {
    401: OpenApiResponse(description="a seat's view while the record is hidden, signed out"),
    403: OpenApiResponse(description="a seat's view while the record is hidden from you"),
}


class MatchReplayApi(APIView):
    """The match's moves and its events as one seat (or a spectator) saw them. A seat's
    view is its bot's owner's until the match's whole record may be shown to the reader
    (its tournament's ``record_visibility``); a spectator's is everyone's."""

    @extend_schema(
        parameters=[
            SEAT_PARAMETER,
        ],
        responses={200: ReplaySerializer, **SEAT_REFUSED},
    )
    def get(self, request, pk):
        seat_text = request.query_params.get("seat")
        body = replay_answers.remembered_body(
            pk=pk, seat_text=seat_text, user=request.user, **REPLAY_KINDS
        )
        if body is not None:  # a finished match's answer, kept (one query, no model)
            return HttpResponse(body, content_type="application/json")
        match = get_object_or_404(Match.objects.only(*selectors.REPLAY_LOOKUP_FIELDS), pk=pk)
        seat, view = seat_view(request, match, seat_text, players=selectors.seat_count(match))
        if view.results_hidden:
            return held_replay_body(match_pk=match.pk, seat=seat, moves=[], events=[])

        def build() -> bytes:
            return selectors.replay_body(match=match, seat=seat, full=view.full)

        kind = replay_answers.answer_kind(view=view, **REPLAY_KINDS)
        body = replay_answers.cached_replay_body(match=match, seat=seat, kind=kind, build=build)
        return HttpResponse(body, content_type="application/json")
