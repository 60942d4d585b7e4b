"""Sputo tournaments in the REST API (``/api/v1/``): ``tournaments/`` with their entrants,
check-in, draw and bracket, and ``tournament-matches/`` with the result cycle's steps.

Thin views: the input's shape is checked here, everything else by the services (a 400 naming
the field, a 403, a 409 with a message), with the same access check as the pages.
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from clubs.api import AddChangeViewSet, ClubAccessMixin
from clubs.models import Player, Role
from matches.results.api import result_steps
from matches.results.models import OPEN, Outcome, OutcomeStatus
from matches.sputo import reads, services, stages
from matches.sputo.adapter import SputoAdapter
from matches.sputo.models import (
    Tournament,
    TournamentMatch,
)

# --- Serializers -------------------------------------------------------------------------
from matches.sputo.serializers import (
    BracketSerializer,
    BulkEntrantsSerializer,
    BulkEntrySerializer,
    CorrectSerializer,
    DecideSerializer,
    DisputeSerializer,
    EntrantSerializer,
    MatchSerializer,
    PlayerIdSerializer,
    ResolveSerializer,
    ResultSerializer,
    RoundClockSerializer,
    RoundQuerySerializer,
    RoundStartSerializer,
    StageMatchSerializer,
    StandingsSerializer,
    TournamentSerializer,
    TournamentUpdateSerializer,
    bracket_json,
    player_ref,
    stage_match,
    standings_json,
)
from plumbing.errors import Conflict, not_found
from plumbing.strict import IdFilter, json_parsers, query_data


class TournamentFilter(filters.FilterSet):
    season = IdFilter(field_name="season_id")

    class Meta:
        model = Tournament
        fields = ["club__slug", "status", "season"]


# --- Viewsets --------------------------------------------------------------------------------

# The wrong moment: entries closed, check-in not open, a move the tournament cannot make,
# a result already decided, a second confirmation, players not known yet.
CONFLICTS = {409}


class TournamentViewSet(AddChangeViewSet):
    """Sputo knockout tournaments of the clubs you can see. Admins create, change (in draft
    and registration), open check-in and draw; players enter and check themselves in."""

    model = Tournament
    queryset = Tournament.objects.none()  # the schema's model; get_queryset filters
    serializer_class = TournamentSerializer
    update_serializer_class = TournamentUpdateSerializer
    related = ("club",)
    filterset_class = TournamentFilter
    ordering_fields = ["starts_at", "name"]
    parser_classes = json_parsers()  # options are an object: JSON, not a form
    api_errors = {
        "update": CONFLICTS,
        "partial_update": CONFLICTS,
        "entrants": CONFLICTS,
        "remove_entrant": CONFLICTS,
        "enter_many": CONFLICTS,
        "check_in": CONFLICTS,
        "draw": CONFLICTS,
        "standings": CONFLICTS,
        "next_stage": CONFLICTS,
        "next_round": CONFLICTS,
        "start_round": CONFLICTS,
        "replace_entrant": CONFLICTS,
    }

    def role_to_write(self, obj) -> str | None:
        if self.action in ("entrants", "check_in", "remove_entrant"):
            return Role.MEMBER
        if self.action == "enter_many":
            return Role.SCORER
        return Role.ADMIN

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        club = data.pop("club")
        self.require(club, Role.ADMIN)
        serializer.instance = services.create_tournament(club=club, by=self.request.user, **data)

    def perform_update(self, serializer):
        serializer.instance = services.update_tournament(
            tournament=serializer.instance, by=self.request.user, **serializer.validated_data
        )

    @extend_schema(
        methods=["GET"], responses=EntrantSerializer(many=True), request=None, filters=False
    )
    @extend_schema(methods=["POST"], request=PlayerIdSerializer, responses={201: EntrantSerializer})
    @action(detail=True, methods=["get", "post"], pagination_class=None, filter_backends=[])
    def entrants(self, request, pk=None):
        """The entrants; POST enters a player (a member enters themselves; scorers and
        admins enter anyone), before the draw."""
        tournament = self.get_object()
        if request.method == "GET":
            entrants = tournament.entrants.select_related("player").order_by(
                "seed", "entered_at", "pk"
            )
            positions = services.waiting_positions(tournament)
            return Response(
                EntrantSerializer(
                    entrants, many=True, context={"waiting_positions": positions}
                ).data
            )
        data = PlayerIdSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        player = _player(tournament, data.validated_data["player"])
        entrant = services.add_entrant(tournament=tournament, player=player, by=request.user)
        return Response(EntrantSerializer(entrant).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=BulkEntrantsSerializer,
        responses={201: BulkEntrySerializer, 200: BulkEntrySerializer},
    )
    @action(detail=True, methods=["post"], url_path="entrants/bulk")
    def enter_many(self, request, pk=None):
        """Enter many at once (scorers and admins): ``players`` by id and ``names`` (a
        new guest for a name the club does not know). All or nothing: a player already
        entered or named twice is a 400 naming the field and each name."""
        tournament = self.get_object()
        data = BulkEntrantsSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        ids, names = data.validated_data["players"], data.validated_data["names"]
        if not ids and not names:  # nobody named: nothing to do (the page asks for someone)
            return Response({"entrants": [], "new_guests": []}, status=status.HTTP_200_OK)
        found = tournament.club.players.active().in_bulk(ids)
        missing = [pk for pk in ids if pk not in found]
        if missing:  # as any object a body names that is not there: a 404 naming the field
            raise not_found(
                "players", _("No such player in this club: %(ids)s.") % {"ids": missing}
            )
        done = services.add_entrants(
            tournament=tournament,
            by=request.user,
            players=[found[pk] for pk in ids],
            names=names,
        )
        body = {
            "entrants": EntrantSerializer(done.entrants, many=True).data,
            "new_guests": [player_ref(p) for p in done.new_guests],
        }
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=r"entrants/(?P<entrant_id>[0-9]{1,18})")
    def remove_entrant(self, request, pk=None, entrant_id=None):
        """Withdraw an entry before the draw (the player, a scorer or an admin)."""
        tournament = self.get_object()
        entrant = get_object_or_404(tournament.entrants.select_related("player"), pk=entrant_id)
        services.remove_entrant(entrant=entrant, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=EntrantSerializer)
    @action(
        detail=True,
        methods=["post"],
        url_path=r"entrants/(?P<entrant_id>[0-9]{1,18})/replace",
    )
    def replace_entrant(self, request, pk=None, entrant_id=None):
        """After the draw (admins): the first of the waiting list takes the place of this
        entrant, who has not played yet; answers the new entrant. Nobody waiting, or the
        entrant has played: 409."""
        tournament = self.get_object()
        entrant = get_object_or_404(tournament.entrants, pk=entrant_id)
        taken = services.replace_from_waiting_list(entrant=entrant, by=request.user)
        return Response(EntrantSerializer(taken).data)

    @extend_schema(request=PlayerIdSerializer, responses=EntrantSerializer)
    @action(detail=True, methods=["post"], url_path="check-in")
    def check_in(self, request, pk=None):
        """Check a player in (the player, a scorer or an admin) once check-in is open."""
        tournament = self.get_object()
        data = PlayerIdSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        player = _player(tournament, data.validated_data["player"])
        entrant = services.check_in(tournament=tournament, player=player, by=request.user)
        return Response(EntrantSerializer(entrant).data)

    @extend_schema(request=None, responses=BracketSerializer)
    @action(detail=True, methods=["post"])
    def draw(self, request, pk=None):
        """Make the bracket (admins) and answer it."""
        tournament = services.draw_tournament(tournament=self.get_object(), by=request.user)
        return Response(bracket_json(tournament))

    @extend_schema(responses=BracketSerializer, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[])
    def bracket(self, request, pk=None):
        """The bracket: rounds of matches, the third-place match, the standings once
        finished. A round robin's and a Swiss's rounds are its rounds; groups then a
        knockout: the knockout's, once made."""
        return Response(bracket_json(self.get_object()))

    @extend_schema(responses=StandingsSerializer, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[])
    def standings(self, request, pk=None):
        """The table of a round robin, of each group, or of a Swiss: each row with why it
        stands above the next. A knockout has none (409: see the bracket)."""
        tournament = self.get_object()
        if not tournament.has_table:
            raise Conflict(_("A knockout has no table: its bracket is its standings."))
        return Response(standings_json(tournament))

    @extend_schema(
        parameters=[RoundQuerySerializer],
        responses=StageMatchSerializer(many=True),
        filters=False,
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def matches(self, request, pk=None):
        """Every match of the tournament (``?round=n``: that round's), in round order: a
        group's with its ``group``, a Swiss pairing with ``why`` in words."""
        tournament = self.get_object()
        query = RoundQuerySerializer(data=query_data(request))
        query.is_valid(raise_exception=True)
        found = reads.bracket_of(tournament).all_matches
        if "round" in query.validated_data:
            found = [m for m in found if m.round == query.validated_data["round"]]
        names = {p.pk: p.display_name for m in found for p in m.players()}
        return Response([stage_match(m, names) for m in found])

    @extend_schema(request=None, responses=BracketSerializer)
    @action(detail=True, methods=["post"], url_path="next-stage")
    def next_stage(self, request, pk=None):
        """Make the knockout of groups then a knockout (admins), once every group match is
        decided (before that: 409); answers the bracket."""
        tournament = stages.make_knockout(tournament=self.get_object(), by=request.user)
        return Response(bracket_json(tournament))

    @extend_schema(request=RoundStartSerializer, responses=RoundClockSerializer)
    @action(detail=True, methods=["post"], url_path=r"rounds/(?P<number>[0-9]{1,4})/start")
    def start_round(self, request, pk=None, number=None):
        """Start round ``n``'s clock (admins): ``{"minutes": 30}``; again, for extra time.
        A round the tournament does not have yet, or a tournament not running: 409."""
        data = RoundStartSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        clock = stages.start_round(
            tournament=self.get_object(),
            by=request.user,
            number=int(number),
            minutes=data.validated_data["minutes"],
            kind=data.validated_data.get("kind", ""),
        )
        return Response(RoundClockSerializer(clock).data)

    @extend_schema(request=None, responses=StageMatchSerializer(many=True))
    @action(detail=True, methods=["post"], url_path="rounds/next")
    def next_round(self, request, pk=None):
        """Pair a Swiss's next round (admins) once the last one is decided (before that, or
        after the last round: 409); answers the new round's matches."""
        made = stages.next_round(tournament=self.get_object(), by=request.user)
        for m in made:
            m.status = reads.match_status(m, None)
        names = {p.pk: p.display_name for m in made for p in m.players()}
        return Response([stage_match(m, names) for m in made])


def _player(tournament, player_id) -> Player:
    """A player of the tournament's club. Another id is a 400 naming ``player``, as the
    API's contract says ("an unknown player"), not the 404 of other bodies."""
    player = Player.objects.filter(
        pk=player_id, club_id=tournament.club_id, merged_into__isnull=True
    ).first()
    if player is None:
        raise serializers.ValidationError({"player": [_("No such player in this club.")]})
    return player


CORRECTION_ANSWER = OpenApiResponse(
    response=inline_serializer(
        "CorrectionAnswer",
        {
            "match": MatchSerializer(required=False),
            "preview": serializers.JSONField(required=False),
        },
    ),
    description=gettext_lazy(
        "With preview: what would change, exactly as applying it will: the match's result; "
        "every later match it changes, round by round down to the final and the third-place "
        "match (matches, each before and after; rounds); the later results set aside "
        "(set_aside: back to be played, their ratings undone: ratings_undone) or awarded "
        "(awarded); reports waiting set aside (reports_set_aside); the tournament's status, "
        "its winner (champion) and standings, before and after. Without: the corrected match."
    ),
)

MatchSteps = result_steps(
    "sputo",
    steps=SputoAdapter.steps,
    bodies={
        "report": ResultSerializer,
        "dispute": DisputeSerializer,
        "decide": DecideSerializer,
        "correct": CorrectSerializer,
    },
    answer=MatchSerializer,
    answers={"correct": {200: CORRECTION_ANSWER}},
    notes={
        "report": "A log the rules engine refuses is a 400 naming ``games``, the game's "
        "number first and the event index as ``at``.",
        "correct": 'With ``"preview": true`` nothing changes and the answer lists what would. '
        "A correction flows through the whole bracket in this one step: later matches that "
        "depended on the result are re-seated, or set aside when already played (kept in "
        "the history, voided, their ratings undone) and back to be played, unless the body's "
        '``awards`` (``[{"match": id, "winner": player id}]``) awards them.',
    },
)


class TournamentMatchViewSet(
    ClubAccessMixin, MatchSteps, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """A match of a tournament, and the result cycle's steps on it (``matches.results``)."""

    model = TournamentMatch
    queryset = TournamentMatch.objects.none()  # the schema's model; get_queryset filters
    serializer_class = MatchSerializer
    filter_backends: list = []
    parser_classes = json_parsers()  # games are a list of objects: JSON, not a form
    api_errors = {action: CONFLICTS for action in (*SputoAdapter.steps, "resolve")}

    def get_queryset(self):
        # What the lookup needs and no more: the club (the access check) and the two players
        # (who plays it, for the roles table). A step reads the match again under its lock
        # with all the cycle reads (``SputoAdapter.lock``) and every answer reads what it
        # shows (``_answer``): joining the tournament, its house rules and the winner here
        # too only made PostgreSQL plan a seven-table join (4 ms of a report) to throw away.
        return super().get_queryset().select_related("club", "player_a", "player_b")

    def role_to_write(self, obj) -> str | None:
        return self.step_role(self.action)

    def _answer(self, match, code=status.HTTP_200_OK):
        """The match as it is now with its results: read again (two queries) by its id
        alone (the request was let in to it already, and what the answer shows is all it
        joins)."""
        match = (
            TournamentMatch.objects.select_related("tournament", "player_a", "player_b", "winner")
            .prefetch_related(Prefetch("outcomes", Outcome.objects.select_related("reported_by")))
            .get(pk=match.pk)
        )
        found = list(match.outcomes.all())
        outcome = next((o for o in found if o.status in OPEN), None)
        match.open_outcome = outcome  # what the serializer shows as pending
        match.in_force = next((o for o in found if o.status == OutcomeStatus.CONFIRMED), None)
        match.status = reads.match_status(match, outcome.status if outcome else None)
        return Response(MatchSerializer(match).data, status=code)

    def retrieve(self, request, *args, **kwargs):
        return self._answer(self.get_object())

    # --- The result cycle's steps (``result_steps``): how this game's bodies read

    def step_subject(self, request, **kwargs):
        return self.get_object()

    def step_answer(self, subject, step, code=status.HTTP_200_OK, taken=None):
        answer = self._answer(subject, code)
        return Response({"match": answer.data}) if step == "correct" else answer

    def step_payload(self, step, data, request):
        # The result's keys as sent: the cycle checks them against the match.
        body = {k: v for k, v in request.data.items() if k not in ("uphold", "note", "reason")}
        body.pop("preview", None)
        if step == "decide":
            return {k: v for k, v in body.items() if v is not None} or None
        return body

    @extend_schema(request=ResolveSerializer, responses=MatchSerializer)
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        """Resolve a match flagged by a correction made before corrections flowed through the
        bracket (admins): replay it, or award it."""
        match = self.get_object()
        data = ResolveSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        services.resolve_match(match=match, by=request.user, **data.validated_data)
        return self._answer(match)


def register(router) -> None:
    router.register("tournaments", TournamentViewSet, basename="tournament")
    router.register("tournament-matches", TournamentMatchViewSet, basename="tournament-match")
