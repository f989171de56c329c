"""API views of ladders: list, detail, their matches, pause and resume."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    extend_schema,
)
from rest_framework import generics, serializers
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments import readcache, selectors, services
from tournaments.apis.matches import EventMatchesApi
from tournaments.models import Ladder
from tournaments.readcache import marks


class LadderSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField(help_text="the ladder's matches by status")

    class Meta:
        model = Ladder
        fields = [
            "id",
            "key",
            "game",
            "players",
            "options",
            "paused",
            "tables",
            "created_at",
            "last_scheduled_at",
            "progress",
        ]

    def get_progress(self, ladder) -> dict:
        return selectors.ladder_progress(ladder=ladder)


# Each ladder with its counter row in one query (a join), not one query more per ladder;
# for anonymous readers stored under the ladders' marks (every column they show).
class LadderListApi(generics.ListAPIView):
    serializer_class = LadderSerializer
    queryset = Ladder.objects.select_related("count")

    def list(self, request, *args, **kwargs):
        parent = super().list
        mark = marks.ladders_mark() if readcache.anonymous(request) else None
        return readcache.api_response(
            request, self, mark, lambda: parent(request, *args, **kwargs).data
        )


class LadderDetailApi(generics.RetrieveAPIView):
    serializer_class = LadderSerializer
    queryset = Ladder.objects.select_related("count")

    def get(self, request, *args, **kwargs):
        anonymous = readcache.anonymous(request)
        mark = marks.ladder_mark(pk=kwargs["pk"]) if anonymous else None
        return readcache.api_response(
            request, self, mark, lambda: self.retrieve(request, *args, **kwargs).data
        )


class LadderMatchesApi(EventMatchesApi):
    """The matches the ladder scheduled, newest first."""

    keyset_ordering = ("-id",)
    event_model = Ladder
    event_field = "ladder"
    mark_of = staticmethod(marks.ladder_mark)


class LadderPauseApi(APIView):
    """Staff only: a paused ladder queues nothing new; what is queued still plays."""

    permission_classes = [IsAdminUser]
    paused = True

    @extend_schema(request=None, responses=LadderSerializer)
    def post(self, request, pk):
        ladder = get_object_or_404(Ladder, pk=pk)
        ladder = services.set_ladder_paused(ladder=ladder, paused=self.paused)
        return Response(LadderSerializer(ladder).data)


class LadderResumeApi(LadderPauseApi):
    paused = False
