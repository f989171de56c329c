"""API views of tournaments: list and create, detail, cancel and their matches."""

from __future__ import annotations

import django_filters
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from games import registry
from tournaments import readcache, selectors, services, visibility
from tournaments.apis.matches import EventMatchesApi
from tournaments.models import Tournament
from tournaments.readcache import marks
from tournaments.services import scheduling


class TournamentSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", read_only=True)
    bots = serializers.ListField(
        child=serializers.IntegerField(), write_only=True, help_text="ids of the entrant bots"
    )
    challengers = serializers.ListField(
        child=serializers.IntegerField(),
        source="challenger_ids",
        required=False,
        help_text="gauntlet: ids of the bots (among the entrants) who play every other entrant",
    )
    entrants = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "organiser",
            "game",
            "options",
            "format",
            "players_per_match",
            "games_per_pairing",
            "rotate_seats",
            "rounds",
            "challengers",
            "advance",
            "third_place",
            "grand_final_reset",
            "seeding",
            "move_ms",
            "bank_ms",
            "rated",
            "record_visibility",
            "seed",
            "seed_salt",
            "seed_commitment",
            "start_at",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "bots",
            "entrants",
        ]
        read_only_fields = [
            "id",
            "organiser",
            "seed_salt",
            "seed_commitment",
            "status",
            "created_at",
            "started_at",
            "finished_at",
            "entrants",
        ]
        extra_kwargs = {
            "players_per_match": {"required": False},
            "games_per_pairing": {
                "required": False,
                "help_text": "games per pairing or series; with seat rotation a multiple of "
                "players_per_match (the default is one game per rotation)",
            },
            "rounds": {
                "help_text": "swiss: rounds to play; null: enough to separate the field, "
                "log2 of the entrants rounded up, plus one (4 for 7 or 8 entrants)"
            },
            "advance": {
                "help_text": "elimination with 3+ seats: how many of each table go through"
            },
            "third_place": {"help_text": "single elimination: play a series for third place"},
            "grand_final_reset": {
                "help_text": "double elimination: a second final when the losers' bracket "
                "champion wins the first"
            },
            "seeding": {
                "help_text": "rating: by current rating, best first; entry: in the order of bots"
            },
            "seed_commitment": {
                "help_text": "SHA-256 of seed_salt, a colon and the seed in decimal; published "
                "at creation, checkable once the seed and salt are revealed at the start"
            },
            "start_at": {
                "required": False,
                "help_text": "when the tournament starts (default: now, the time of creation)",
            },
            "seed": {
                "required": False,
                "allow_null": True,
                "help_text": "every match's deal derives from it; hidden (null, as seed_salt) "
                "from all but the organiser until the tournament has ended with no match left "
                "to play, and then under record_visibility owners from all but staff",
            },
            "record_visibility": {
                "required": False,
                "help_text": "who sees a finished match's whole record (every seat's hidden "
                "cards and actions, the record, the seed) beyond what the rules make public; "
                "never before every game dealt the same cards is finished. finished (the "
                "default): everyone; tournament_end: everyone once the tournament has ended; "
                "owners: only the owners of the match's bots, and staff. A seat's owner "
                "always sees that seat's own view",
            },
            "options": {"required": False},
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("format", "seeding", "record_visibility"):
            field = self.fields[name]
            known = ", ".join(str(value) for value in field.choices)
            field.error_messages["invalid_choice"] = f"There is no {name.replace('_', ' ')} "
            field.error_messages["invalid_choice"] += f'"{{input}}": pick one of {known}'

    def get_entrants(self, tournament) -> list[dict]:
        return selectors.entrants(tournament=tournament)

    def to_representation(self, tournament):
        selectors.entrants(tournament=tournament)  # one read for challengers and entrants
        data = super().to_representation(tournament)
        # Every deal follows from the seed: before the start it would let an entrant upload
        # a version that knows every deck, and later it shows every hand of the games
        # still to play (and under "owners" of every game). Only the organiser sees it early.
        request = self.context.get("request")
        user = request.user if request is not None else None
        live = getattr(tournament, "_live_matches", None)  # read for a page at once
        if not visibility.tournament_seed_shown(tournament=tournament, user=user, live=live):
            data["seed"] = None
            data["seed_salt"] = None
        return data

    def validate_start_at(self, value):
        if self.instance is not None and value == self.instance.start_at:
            return value  # an edit that sends the start back unchanged
        if refusal := scheduling.past_start_refusal(value):
            raise ValidationError(refusal.replace("leave the start empty", "leave start_at out"))
        return value

    def validate_options(self, value):
        if not isinstance(value, dict):
            raise ValidationError("options must be an object of option name to value")
        return value


class PlanSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="the games the format plans for the field")
    exact = serializers.BooleanField(
        help_text="false for elimination: a tied series adds deciders and a grand-final "
        "reset adds a series, so about this many"
    )


class TournamentDetailSerializer(TournamentSerializer):
    standings = serializers.SerializerMethodField(
        help_text="best first; tiebreaks holds the format's tie-break values by name"
    )
    tiebreaks = serializers.SerializerMethodField(help_text="the format's tie-breaks, in order")
    round_tables = serializers.SerializerMethodField(
        help_text="swiss and gauntlet: each round's tables (bot ids, first seat first) and byes"
    )
    bracket = serializers.SerializerMethodField(
        help_text="elimination: each series with its entrants, winner and where its winner "
        "and loser go next"
    )
    progress = serializers.SerializerMethodField()
    results_hidden = serializers.SerializerMethodField(
        help_text="whether the tournament is a competition's final whose results its "
        "organiser has not released to you: then the standings are unplaced, the bracket "
        "shows who plays whom without winners, and its matches show no results"
    )
    planned = serializers.SerializerMethodField(
        help_text="how many games the format plans (before the start: for every entry); "
        "null when it cannot play the field"
    )
    cancel_reason = serializers.CharField(
        read_only=True,
        help_text="why the tournament cancelled itself at its start (too few entrants could "
        "play); empty otherwise",
    )

    class Meta(TournamentSerializer.Meta):
        fields = TournamentSerializer.Meta.fields + [
            "cancel_reason",
            "standings",
            "tiebreaks",
            "round_tables",
            "bracket",
            "progress",
            "planned",
            "results_hidden",
        ]

    def to_representation(self, tournament):
        data = super().to_representation(tournament)
        # A withdrawn entrant's fault may quote its stderr: its owner alone reads it.
        request = self.context.get("request")
        reasons = selectors.withdrawal_reasons(
            tournament=tournament, user=getattr(request, "user", None)
        )
        if reasons:
            data["entrants"] = [
                {**row, "withdrawal_reason": reasons[row["bot_id"]]}
                if row["bot_id"] in reasons
                else row
                for row in data["entrants"]
            ]
        return data

    def _overview(self, tournament) -> dict:
        cached = getattr(tournament, "_overview", None)
        if cached is None:
            request = self.context.get("request")
            user = request.user if request is not None else None
            cached = selectors.overview_for(tournament=tournament, user=user)
            tournament._overview = cached
        return cached

    def get_results_hidden(self, tournament) -> bool:
        return bool(self._overview(tournament).get("results_hidden"))

    def get_standings(self, tournament) -> list[dict]:
        return self._overview(tournament)["standings"]

    def get_tiebreaks(self, tournament) -> list[str]:
        return self._overview(tournament)["tiebreaks"]

    def get_round_tables(self, tournament) -> list[dict]:
        return self._overview(tournament)["rounds"]

    def get_bracket(self, tournament) -> list[dict]:
        return self._overview(tournament)["bracket"]

    def get_progress(self, tournament) -> dict:
        return selectors.progress(tournament=tournament)

    @extend_schema_field(PlanSerializer(allow_null=True))
    def get_planned(self, tournament) -> dict | None:
        plan = selectors.planned_games(tournament=tournament)
        return None if plan is None else {"games": plan.games, "exact": plan.exact}


class TournamentFilter(django_filters.FilterSet):
    """The tournament list's filters: an unknown game or status is a 400."""

    game = django_filters.ChoiceFilter(
        choices=[(slug, slug) for slug in registry.slugs()], help_text="a game's slug"
    )
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)

    class Meta:
        model = Tournament
        fields = ["game", "status"]


class TournamentListCreateApi(generics.ListAPIView):
    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter  # applied and validated by DjangoFilterBackend

    # New tournaments per user; the scope's throttle and rate come from the settings.
    throttle_scope = "tournaments"

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    def get_queryset(self):
        return selectors.tournament_list()

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        selectors.load_entrants(tournaments=page)  # one query, not one per row
        # Whether an ended tournament's seed may show: one query for the page's.
        ended = [t.pk for t in page if t.status in visibility.ENDED]
        live = visibility.tournament_ids_with_live_matches(ended)
        for tournament in page:
            tournament._live_matches = tournament.pk in live
        return page

    def list(self, request, *args, **kwargs):
        # Stored under the list's mark, read before the rows (readcache.marks).
        mark = marks.tournament_list_mark()
        return readcache.api_response(request, self, mark, lambda: self._page_data())

    def _page_data(self):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data).data

    @extend_schema(request=TournamentSerializer, responses={201: TournamentDetailSerializer})
    def post(self, request):
        data = TournamentSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        tournament = services.create_tournament(
            organiser=request.user,
            bot_ids=fields.pop("bots"),
            challengers=fields.pop("challenger_ids", None),
            **fields,
        )
        answer = TournamentDetailSerializer(tournament, context={"request": request})
        return Response(answer.data, status=status.HTTP_201_CREATED)


class TournamentDetailApi(generics.RetrieveAPIView):
    """A tournament; its organiser may change it (PATCH) until it starts."""

    serializer_class = TournamentDetailSerializer
    # The standings snapshot comes in the tournament's row (tournaments.read_models), with
    # what the seed's and the results' visibility need.
    queryset = selectors.tournament_read()

    def retrieve(self, request, *args, **kwargs):
        # A finished tournament's answer is stored under its results mark (``results_version``).
        mark = marks.finished_tournament_mark(pk=kwargs["pk"])
        return readcache.api_response(
            request, self, mark, lambda: self.get_serializer(self.get_object()).data
        )

    @extend_schema(
        request=TournamentSerializer,
        responses={
            200: TournamentDetailSerializer,
            409: OpenApiResponse(
                description="the tournament has started or ended: only a scheduled one "
                "can be edited (code tournament_started)"
            ),
        },
    )
    def patch(self, request, pk):
        """Change any of the settings given, checked whole as at creation; any change but
        name, start_at, rated and record_visibility draws a new seed and commitment."""
        tournament = get_object_or_404(Tournament, pk=pk)
        if tournament.organiser_id != request.user.id:
            raise PermissionDenied("only the organiser may edit this tournament")
        data = TournamentSerializer(tournament, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        if "bots" in fields:
            fields["bot_ids"] = fields.pop("bots")
        if "challenger_ids" in fields:
            fields["challengers"] = fields.pop("challenger_ids")
        tournament = services.update_tournament(tournament_id=pk, editor=request.user, **fields)
        answer = TournamentDetailSerializer(tournament, context={"request": request})
        return Response(answer.data)


class TournamentCancelApi(APIView):
    @extend_schema(request=None, responses=TournamentDetailSerializer)
    def post(self, request, pk):
        tournament = get_object_or_404(Tournament, pk=pk)
        if tournament.organiser_id != request.user.id:
            raise PermissionDenied("only the organiser may cancel this tournament")
        tournament = services.cancel_tournament(tournament=tournament)
        return Response(TournamentDetailSerializer(tournament, context={"request": request}).data)


class TournamentMatchesApi(EventMatchesApi):
    keyset_ordering = ("round", "number", "id")  # index match_tournament_order
    event_model = Tournament
    event_field = "tournament"
    # A finished tournament's pages are stored under its results mark.
    mark_of = staticmethod(marks.finished_tournament_mark)
