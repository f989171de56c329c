"""The match page and the replay viewer's frames (the table after each move, as one seat
or a spectator saw it)."""

from __future__ import annotations

import functools

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from arena.dashboard import frames
from arena.dashboard.frame_layouts import LAYOUT_VERSION, layout_for, layout_json
from arena.dashboard.page_cache import cached_page
from games import scoring
from tournaments import selectors
from tournaments.apis.matches import SEAT_PARAMETER, SEAT_REFUSED, held_replay_body, seat_view
from tournaments.models import Match
from tournaments.readcache import marks, replay_answers


@cached_page(mark=lambda request, pk: marks.finished_match_mark(pk=pk))
def match_detail(request, pk):
    try:
        match = selectors.match_detail(pk=pk)
    except Match.DoesNotExist:
        raise Http404(f"no match {pk}") from None
    seats = list(match.seats.all())
    players = max(len(seats), selectors.seat_count(match))
    view = selectors.match_view(match=match, user=request.user)
    try:
        seat = selectors.parse_seat(request.GET.get("seat", ""), players=players)
    except ValueError:
        seat = None  # a seat the match does not have: show the spectator's view
    if not view.may_take(seat):
        seat = None  # another's seat while the record is hidden: the spectator's view
    if view.results_hidden:  # a competition holds its outcome back (tournaments.release)
        return render(
            request,
            "arena/match_detail.html",
            {"match": match, "seats": seats, "view": view},
        )
    viewer = {
        "match": match.pk,
        "seat": seat,
        "framesUrl": reverse("api-match-frames", args=[match.pk]),
        "replayUrl": reverse("api-match-replay", args=[match.pk]),
        "seats": [
            {
                "seat": s.seat,
                "bot": s.player_name,
                "version": s.version.number if s.version_id else None,
                "score": s.score,
                "rank": s.rank,
                "fault": s.fault,
            }
            for s in seats
        ],
    }
    return render(
        request,
        "arena/match_detail.html",
        {
            "match": match,
            "seats": seats,
            "lowest_won": scoring.score_direction([(s.rank, s.score) for s in seats]) == "lowest",
            "seat": seat,
            "seat_choices": [(s.seat, s.player_name) for s in seats if view.may_take(s.seat)],
            "view": view,
            "viewer": viewer,
            # Lazy: a finished match's text log is cached and stored (frames.text_log).
            "text_log": functools.cache(
                lambda: frames.text_log(match=match, seat=seat, full=view.full)
            ),
            # The reader's own bots' logs and fault details only (selectors.seat_logs).
            "logs": _own_logs(match, request.user),
            "reproduce": view.full
            and selectors.reproduce(
                match=match,
                user=request.user,
                export_url=request.build_absolute_uri(reverse("api-match", args=[match.pk])),
            ),
        },
    )


def _own_logs(match: Match, user) -> list[tuple[int, str, str]]:
    """(seat, log, fault detail) of each seat whose bot ``user`` owns; the detail is left
    out when the log ends with it (a crash's stderr tail), so it shows once."""
    logs = selectors.seat_logs(match=match, user=user)
    details = selectors.seat_fault_details(match=match, user=user) if logs else {}
    out = []
    for seat, log in sorted(logs.items()):
        detail = details.get(seat) or ""
        shown = "" if log.rstrip().endswith(detail.rstrip()) else detail
        out.append((seat, log, shown))
    return out


class FrameSerializer(serializers.Serializer):
    d = serializers.DictField(help_text="observation keys changed since the previous frame")
    e = serializers.IntegerField(help_text="events the viewer had seen by then")


class FramesSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    game = serializers.CharField()
    layout = serializers.DictField(help_text="which observation keys are hands, piles, chips")
    frames = FrameSerializer(many=True)


class FramesGone(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "replay_unavailable"


class MatchFramesApi(APIView):
    """The table as one seat (or a spectator) saw it after each move, for the replay viewer.
    A seat's frames are its bot's owner's until the match's whole record may be shown to
    the reader (its tournament's ``record_visibility``); a spectator's are everyone's."""

    @extend_schema(
        parameters=[
            SEAT_PARAMETER,
        ],
        responses={200: FramesSerializer, **SEAT_REFUSED},
    )
    def get(self, request, pk):
        seat_text = request.query_params.get("seat")
        # Frames hold observations only: the same answer with the whole record or without.
        kind = f"frames:{LAYOUT_VERSION}"
        body = replay_answers.remembered_body(
            pk=pk, seat_text=seat_text, kind=kind, user=request.user
        )
        if body is not None:  # a finished match's answer, kept (one query, no model)
            return HttpResponse(body, content_type="application/json")
        match = get_object_or_404(Match.objects.only(*selectors.REPLAY_LOOKUP_FIELDS), pk=pk)
        seat, view = seat_view(request, match, seat_text, players=selectors.seat_count(match))
        if view.results_hidden:
            return held_replay_body(match_pk=match.pk, seat=seat, game=match.game, frames=[])

        def build() -> bytes:
            head = {
                "match": match.pk,
                "seat": seat,
                "game": match.game,
                "layout": layout_json(layout_for(match.game)),
            }
            # A finished match's frames are stored once (tournaments.read_models.replays).
            stored = selectors.stored_piece(match=match, part="frames", seat=seat)
            if stored is not None:
                return selectors.spliced_json(head, [("frames", stored)])
            try:
                found = frames.match_frames(match=match, seat=seat)
            except frames.FramesUnavailable as exc:
                raise FramesGone(str(exc)) from exc
            return JSONRenderer().render({**head, "frames": found})

        body = replay_answers.cached_replay_body(match=match, seat=seat, kind=kind, build=build)
        return HttpResponse(body, content_type="application/json")
