"""The club nights' API (``/api/v1/club-nights/``):

- ``POST /api/v1/club-nights/`` ``{"club": slug, "starts_at", "games", "capacity"}``: an
  admin schedules a night (201);
- ``GET /api/v1/club-nights/?club=slug`` and ``GET /api/v1/club-nights/{id}/``: the nights
  of the clubs the caller sees, each with ``coming`` and ``waiting`` (player ids, for the
  club's members: empty for anyone else), ``coming_count``, ``waiting_count``, ``attended``
  (after the night, for members) and ``attended_count``, and ``mine`` (the caller's answer);
- ``POST /api/v1/club-nights/{id}/rsvp/`` ``{"answer": "yes" | "no" | "maybe"}``: the
  member's own answer, or an admin's for a guest with ``"player": id``.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from clubs.access import access_club, roles_by_club
from clubs.api import ClubSlugField
from clubs.models import Game, Player
from matches.nights import reads, services
from matches.nights.models import Answer, ClubNight
from plumbing.strict import StrictSerializer, json_parsers


class ClubNightSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.CharField(source="club.slug")
    starts_at = serializers.DateTimeField()
    games = serializers.ListField(child=serializers.ChoiceField(choices=Game.choices))
    capacity = serializers.IntegerField(allow_null=True)
    note = serializers.CharField()
    cancelled = serializers.BooleanField()
    over = serializers.BooleanField()
    coming = serializers.ListField(child=serializers.IntegerField())
    coming_count = serializers.IntegerField()
    waiting = serializers.ListField(child=serializers.IntegerField())
    waiting_count = serializers.IntegerField()
    attended = serializers.ListField(child=serializers.IntegerField())
    attended_count = serializers.IntegerField(allow_null=True)
    mine = serializers.ChoiceField(choices=Answer.choices, allow_null=True)


class ClubNightCreateSerializer(StrictSerializer):
    club = ClubSlugField()
    starts_at = serializers.DateTimeField()
    games = serializers.ListField(child=serializers.ChoiceField(choices=Game.choices), min_length=1)
    capacity = serializers.IntegerField(
        allow_null=True, required=False, min_value=1, max_value=services.MAX_CAPACITY
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=200)


class RsvpSerializer(StrictSerializer):
    answer = serializers.ChoiceField(choices=Answer.choices)
    player = serializers.IntegerField(
        required=False, help_text=gettext_lazy("A guest's id (admins); without it, your own.")
    )


CLUB = OpenApiParameter("club", str, description=gettext_lazy("A club's slug."))


class ClubNightViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The clubs' scheduled nights and who says they will come."""

    queryset = ClubNight.objects.none()
    serializer_class = ClubNightSerializer
    api_errors = {"rsvp": {409}, "create": {409}}
    parser_classes = json_parsers()
    filter_backends: list = []

    def get_queryset(self):
        nights = ClubNight.objects.visible_to(self.request.user).select_related("club")
        club = self.request.query_params.get("club")
        if club:
            nights = nights.filter(club__slug=club)
        return nights.order_by("-starts_at", "-pk")

    def _body(self, nights):
        roles = roles_by_club(self.request)
        return reads.bodies(nights, user=self.request.user, member_of=set(roles))

    @extend_schema(parameters=[CLUB])
    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self._body(page))

    def retrieve(self, request, *args, **kwargs):
        return Response(self._body([self.get_object()])[0])

    @extend_schema(request=ClubNightCreateSerializer, responses={201: ClubNightSerializer})
    def create(self, request, *args, **kwargs):
        data = ClubNightCreateSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        values = data.validated_data
        night = services.schedule_night(by=request.user, **values)
        return Response(self._body([night])[0], status=status.HTTP_201_CREATED)

    @extend_schema(request=RsvpSerializer, responses=ClubNightSerializer)
    @action(detail=True, methods=["post"])
    def rsvp(self, request, pk=None):
        night = self.get_object()
        access_club(request.user, night.club)
        data = RsvpSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = None
        if "player" in data.validated_data:
            player = get_object_or_404(
                Player.objects.filter(club=night.club), pk=data.validated_data["player"]
            )
        services.answer(
            night=night, by=request.user, answer=data.validated_data["answer"], player=player
        )
        return Response(self._body([night])[0])


def register(router) -> None:
    router.register("club-nights", ClubNightViewSet, basename="club-night")
