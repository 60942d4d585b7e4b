"""The championship's API:

- ``GET /api/v1/seasons/{id}/championship/``: the rules in force with their ``version``
  (whoever sees the club); ``PUT`` the same body: a new version (admins);
- ``GET /api/v1/seasons/{id}/standings/``: the standings; the CSV is the page's ``standings.csv``;
- ``POST /api/v1/seasons/{id}/final/`` ``{"top", "format", "name"}``: the final (admins).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.access import access_club
from clubs.models import Role, Season
from matches.championship import config, services, standings
from matches.championship.config import DEFAULT
from matches.championship.models import EventKind
from matches.sputo.models import Format
from plumbing.strict import StrictSerializer, json_parsers


def visible_season(request, pk) -> Season:
    return get_object_or_404(Season.objects.visible_to(request.user).select_related("club"), pk=pk)


class TournamentRulesSerializer(StrictSerializer):
    points = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=config.MAX_POINTS),
        min_length=1,
        max_length=config.MAX_PLACES,
    )
    participation = serializers.IntegerField(
        min_value=0, max_value=config.MAX_POINTS, required=False
    )


class NightRulesSerializer(TournamentRulesSerializer):
    min_games = serializers.IntegerField(min_value=0, max_value=config.MAX_COUNT, required=False)


class EventsSerializer(StrictSerializer):
    sputo = TournamentRulesSerializer(required=False, allow_null=True)
    singapore_night = NightRulesSerializer(required=False, allow_null=True)
    spazzumazz_night = NightRulesSerializer(required=False, allow_null=True)


class ChampionshipSerializer(StrictSerializer):
    version = serializers.IntegerField(read_only=True, allow_null=True)
    events = EventsSerializer(required=False)
    best_of = serializers.IntegerField(
        allow_null=True, min_value=1, max_value=config.MAX_COUNT, required=False
    )
    min_events = serializers.IntegerField(min_value=0, max_value=config.MAX_COUNT, required=False)
    guests = serializers.BooleanField(required=False)


class SeasonResultSerializer(serializers.Serializer):
    event = serializers.ChoiceField(choices=EventKind.choices)
    id = serializers.IntegerField()
    date = serializers.DateField()
    place = serializers.IntegerField()
    points = serializers.IntegerField()
    counted = serializers.BooleanField()


class SeasonStandingRowSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField()
    events = serializers.IntegerField()
    wins = serializers.IntegerField()
    results = SeasonResultSerializer(many=True)
    why = serializers.CharField()


class SeasonStandingsSerializer(serializers.Serializer):
    version = serializers.IntegerField(allow_null=True)
    rules_version = serializers.IntegerField(allow_null=True)
    rows = SeasonStandingRowSerializer(many=True)


def rules_body(championship) -> dict:
    if championship is None:
        return {"version": None, **DEFAULT}
    return {"version": championship.version, **championship.rules}


def standings_body(table: standings.Table) -> dict:
    return {
        "version": table.version
        if table.version is not None
        else rules_body(table.championship)["version"],
        "rules_version": table.championship.version if table.championship else None,
        "rows": [
            {
                "player": row.player.pk,
                "name": row.player.display_name,
                "rank": row.rank,
                "points": row.standing.points,
                "events": row.standing.events,
                "wins": row.standing.wins,
                "results": row.results,
                "why": row.why,
            }
            for row in table.rows
        ],
    }


class ChampionshipView(APIView):
    """The season's championship rules (GET: whoever sees the club; PUT: admins)."""

    parser_classes = json_parsers()

    @extend_schema(responses=ChampionshipSerializer)
    def get(self, request, pk):
        season = visible_season(request, pk)
        return Response(rules_body(standings.rules_in_force(season)))

    @extend_schema(request=ChampionshipSerializer, responses=ChampionshipSerializer)
    def put(self, request, pk):
        season = visible_season(request, pk)
        access_club(request.user, season.club, at_least=Role.ADMIN)
        championship = services.set_championship(season=season, by=request.user, data=request.data)
        return Response(rules_body(championship))


class StandingsView(APIView):
    """The season's standings, ranked."""

    @extend_schema(responses=SeasonStandingsSerializer)
    def get(self, request, pk):
        season = visible_season(request, pk)
        access_club(request.user, season.club)
        return Response(standings_body(standings.table(season)))


class FinalSerializer(StrictSerializer):
    top = serializers.IntegerField(min_value=2, max_value=services.MAX_FINAL)
    format = serializers.ChoiceField(choices=Format.choices)
    name = serializers.CharField(max_length=120)
    starts_at = serializers.DateTimeField(required=False)


class FinalView(APIView):
    """The final of the season: a tournament of the standings' top N, seeded by rank."""

    parser_classes = json_parsers()
    api_errors = {"post": {409}}  # fewer than two ranked players

    @extend_schema(
        request=FinalSerializer,
        responses={201: inline_serializer("FinalCreated", {"id": serializers.IntegerField()})},
    )
    def post(self, request, pk):
        season = visible_season(request, pk)
        access_club(request.user, season.club, at_least=Role.ADMIN)
        body = FinalSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        tournament = services.create_final(season=season, by=request.user, **body.validated_data)
        return Response({"id": tournament.pk}, status=status.HTTP_201_CREATED)
