"""API views of a competition's teams: the list, creating one, members added and removed,
bots given to the team (docs/competitions.md)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.models import Bot
from tournaments.apis.competitions import competition_or_404, id_field
from tournaments.models import Competition
from tournaments.selectors import competitions as selectors
from tournaments.services import teams as team_services


class TeamBotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class TeamSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(max_length=60)
    created_by = serializers.CharField(read_only=True)
    members = serializers.ListField(child=serializers.CharField(), read_only=True)
    bots = TeamBotSerializer(many=True, read_only=True)
    created_at = serializers.DateTimeField(read_only=True)


class UsernameSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)


class BotIdSerializer(serializers.Serializer):
    bot = id_field()


def _teams_answer(competition: Competition, team_id: int, code=status.HTTP_200_OK) -> Response:
    rows = selectors.competition_teams(competition=competition)
    return Response(TeamSerializer(next(r for r in rows if r["id"] == team_id)).data, status=code)


class CompetitionTeamsApi(APIView):
    """The teams with their members and bots; signed in, create one (you join it)."""

    @extend_schema(responses=TeamSerializer(many=True))
    def get(self, request, pk):
        rows = selectors.competition_teams(competition=competition_or_404(pk))
        return Response(TeamSerializer(rows, many=True).data)

    @extend_schema(request=TeamSerializer, responses={201: TeamSerializer})
    def post(self, request, pk):
        competition = competition_or_404(pk)
        data = TeamSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        team = team_services.create_team(
            competition=competition, name=data.validated_data["name"], user=request.user
        )
        return _teams_answer(competition, team.pk, status.HTTP_201_CREATED)


def _found_team(competition: Competition, team_id: int):
    return get_object_or_404(competition.teams.select_related("competition"), pk=team_id)


def _user_named(username: str):
    found = get_user_model().objects.filter(username=username).first()
    if found is None:
        raise serializers.ValidationError({"username": [f"There is no user {username}"]})
    return found


class CompetitionTeamMembersApi(APIView):
    """The team's creator adds a member by username (one team per person per competition)."""

    @extend_schema(request=UsernameSerializer, responses={201: TeamSerializer})
    def post(self, request, pk, team_id):
        competition = competition_or_404(pk)
        team = _found_team(competition, team_id)
        data = UsernameSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        member = _user_named(data.validated_data["username"])
        team_services.add_team_member(team=team, user=member, by=request.user)
        return _teams_answer(competition, team.pk, status.HTTP_201_CREATED)


class CompetitionTeamMemberApi(APIView):
    """The creator removes a member, or a member leaves."""

    @extend_schema(request=None, responses=TeamSerializer)
    def delete(self, request, pk, team_id, username):
        competition = competition_or_404(pk)
        team = _found_team(competition, team_id)
        member = _user_named(username)
        team_services.remove_team_member(team=team, user=member, by=request.user)
        return _teams_answer(competition, team.pk)


class CompetitionTeamBotsApi(APIView):
    """The creator gives the team a bot they own: every member may then upload versions of
    it, enter it and challenge with it."""

    @extend_schema(request=BotIdSerializer, responses={201: TeamSerializer})
    def post(self, request, pk, team_id):
        competition = competition_or_404(pk)
        team = _found_team(competition, team_id)
        data = BotIdSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = Bot.objects.filter(pk=data.validated_data["bot"]).first()
        if bot is None:
            raise serializers.ValidationError(
                {"bot": [f"There is no bot with id {data.validated_data['bot']}"]}
            )
        team_services.give_bot_to_team(team=team, bot=bot, by=request.user)
        return _teams_answer(competition, team.pk, status.HTTP_201_CREATED)
