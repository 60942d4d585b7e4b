"""Sputo tournaments in the REST API (``/api/v1/``): ``tournaments/`` with their entrants,
check-in, draw and bracket, and ``tournament-matches/`` with the result cycle's steps.

Thin views: the input's shape is checked here, everything else by the services (a 400 naming
the field, a 403, a 409 with a message), with the same access check as the pages.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from circolo.strict import IdFilter, StrictModelSerializer, StrictSerializer, json_parsers
from clubs.api import ClubAccessMixin, ClubSlugField
from clubs.models import Player, Role, Season
from matches.results.api import result_steps
from matches.sputo import reads, services
from matches.sputo.adapter import SputoAdapter
from matches.sputo.models import (
    BEST_OF,
    Entrant,
    Seeding,
    Tournament,
    TournamentMatch,
    TournamentStatus,
    Variant,
)
from matches.sputo.payload import KEYS as RESULT_KEYS
from rules.sputo import LAYOUT_TOTALS, OPTION_NAMES

# --- Serializers -------------------------------------------------------------------------


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


def player_ref(player) -> dict | None:
    return {"id": player.pk, "name": player.display_name} if player is not None else None


class SeasonField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return Season.objects.visible_to(self.context["request"].user)


@extend_schema_field(
    {
        "type": "object",
        "properties": {"suit_match": {"type": "boolean"}, "splash": {"type": "boolean"}},
        "additionalProperties": False,
    }
)
class OptionsField(serializers.JSONField):
    """Sputo's options (RULES.md): ``{"suit_match": bool, "splash": bool}``, either left out."""

    default_error_messages = {
        "invalid": gettext_lazy('Options are "suit_match" and "splash", each true or false.')
    }

    def to_internal_value(self, data):
        if not isinstance(data, dict) or any(
            name not in OPTION_NAMES or not isinstance(flag, bool) for name, flag in data.items()
        ):
            self.fail("invalid")
        return data


# A tournament's status as an admin moves it (the draw starts it; the last result ends it).
SETTABLE_STATUSES = [
    TournamentStatus.DRAFT,
    TournamentStatus.REGISTRATION,
    TournamentStatus.CHECK_IN,
    TournamentStatus.CANCELLED,
]


class TournamentSerializer(StrictModelSerializer):
    club = ClubSlugField()
    season = SeasonField(required=False, allow_null=True)
    variant = serializers.ChoiceField(choices=Variant.choices, default=Variant.CLASSIC)
    options = OptionsField(required=False, help_text=gettext_lazy("Sputo's options."))
    best_of = serializers.ChoiceField(choices=BEST_OF, default=1)
    final_best_of = serializers.ChoiceField(
        choices=BEST_OF,
        required=False,
        allow_null=True,
        help_text=gettext_lazy("The final's own format: 1, 3 or 5 (null: as the other matches)."),
    )
    seeding = serializers.ChoiceField(choices=Seeding.choices, default=Seeding.RATING)

    class Meta:
        model = Tournament
        # What the services let people set, then what the tournament's life sets.
        read_only_fields = [
            "id",
            "seed",
            "house_rules",
            "status",
            "rounds",
            "drawn_at",
            "finished_at",
            "created_at",
        ]
        fields = ["id", "club", *services.EDITABLE, *read_only_fields[1:]]


class TournamentUpdateSerializer(TournamentSerializer):
    """A tournament stays in its club: ``club`` is not read from the body of a PUT or PATCH;
    ``status`` moves it along its life cycle."""

    club = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    status = serializers.ChoiceField(
        choices=[(s.value, s.label) for s in SETTABLE_STATUSES],
        required=False,
        help_text=gettext_lazy(
            "registration, check_in, back to draft or registration, or cancelled (a move the "
            "tournament cannot make from where it is: 409). The draw starts a tournament."
        ),
    )

    class Meta(TournamentSerializer.Meta):
        read_only_fields = [f for f in TournamentSerializer.Meta.read_only_fields if f != "status"]


class EntrantSerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="player.display_name", read_only=True)
    checked_in = serializers.SerializerMethodField()

    class Meta:
        model = Entrant
        fields = [
            "id",
            "player",
            "name",
            "seed",
            "manual_seed",
            "checked_in",
            "checked_in_at",
            "no_show",
            "entered_at",
        ]
        read_only_fields = fields

    def get_checked_in(self, entrant) -> bool:
        return entrant.checked_in_at is not None


def _player_id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=2**63 - 1, **kwargs)


class PlayerIdSerializer(StrictSerializer):
    player = _player_id(
        help_text=gettext_lazy("A player of the club, by id (another id is a 400 naming it).")
    )


class RecordField(serializers.DictField):
    """A full Sputo event log (RULES.md), checked by the rules engine."""


class GameSerializer(StrictSerializer):
    """One game: its winner and the loser's cards left, or its full log."""

    request_schema_extra = {
        "anyOf": [{"required": ["winner", "cards_left"]}, {"required": ["record"]}]
    }

    winner = _player_id(required=False, help_text=gettext_lazy("A player's id."))
    cards_left = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=max(LAYOUT_TOTALS.values()),
        help_text=gettext_lazy("The loser's cards left in his piles (at most the variant's)."),
    )
    record = RecordField(
        required=False, help_text=gettext_lazy("A full Sputo event log (RULES.md).")
    )


class ResultSerializer(StrictSerializer):
    """A result: ``games``, or ``walkover``, ``retired`` (with the games so far),
    ``double_forfeit`` (scorers and admins) or ``awarded`` (admins). Whether it fits the
    match (its two players, its format, the variant's cards, a log the rules engine accepts)
    is checked against the match: a 400 naming the field."""

    games = GameSerializer(many=True, required=False, max_length=5)
    walkover = _player_id(
        required=False, help_text=gettext_lazy("The player who wins: the other did not come.")
    )
    retired = _player_id(
        required=False, help_text=gettext_lazy("The player who retired during the match.")
    )
    double_forfeit = serializers.BooleanField(required=False)
    awarded = _player_id(required=False)


class DisputeSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=1000)


class DecideSerializer(ResultSerializer):
    uphold = serializers.BooleanField(
        help_text=gettext_lazy("Uphold the disputed report, or reject it (and give a result).")
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=1000)

    def validate(self, data):
        if data["uphold"] and any(key in data for key in RESULT_KEYS):
            raise serializers.ValidationError(
                {"uphold": [_("Either uphold the report or give a result.")]}
            )
        return data


class AwardSerializer(StrictSerializer):
    match = serializers.IntegerField(
        min_value=1,
        max_value=2**63 - 1,
        help_text=gettext_lazy("A later match of the bracket this correction resets or re-seats."),
    )
    winner = _player_id(help_text=gettext_lazy("One of its two players after the correction."))


class CorrectSerializer(ResultSerializer):
    reason = serializers.CharField(required=False, max_length=1000)
    preview = serializers.BooleanField(
        required=False, help_text=gettext_lazy("Answer what would change, and change nothing.")
    )
    awards = AwardSerializer(
        many=True,
        required=False,
        max_length=64,
        help_text=gettext_lazy(
            "The admin's awards of later matches the correction resets (results set aside) or "
            "re-seats, in the same step: each to one of its players after the correction, "
            "round by round (an award seats its winner in the next round). A match that cannot "
            "be awarded (unchanged by the correction, a player not known): a 400 naming awards."
        ),
    )


class ResolveSerializer(StrictSerializer):
    action = serializers.ChoiceField(choices=[("replay", "replay"), ("award", "award")])
    winner = _player_id(required=False)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000)


class PendingSerializer(serializers.Serializer):
    status = serializers.CharField()
    reported_by = serializers.CharField(allow_null=True)
    result = serializers.JSONField()
    note = serializers.CharField()


class MatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    tournament = serializers.IntegerField(source="tournament_id")
    kind = serializers.CharField()
    round = serializers.IntegerField()
    round_label = serializers.CharField()
    position = serializers.IntegerField()
    best_of = serializers.IntegerField()
    player_a = serializers.SerializerMethodField()
    player_b = serializers.SerializerMethodField()
    bye = serializers.BooleanField()
    winner = serializers.SerializerMethodField()
    status = serializers.CharField()
    result = serializers.CharField()
    needs_resolution = serializers.BooleanField()
    games = serializers.SerializerMethodField()
    pending = serializers.SerializerMethodField()

    def get_player_a(self, match) -> dict | None:
        return player_ref(match.player_a)

    def get_player_b(self, match) -> dict | None:
        return player_ref(match.player_b)

    def get_winner(self, match) -> dict | None:
        return player_ref(match.winner)

    def get_games(self, match) -> list[dict]:
        outcome = match.outcome_in_force()
        return outcome.payload.get("games", []) if outcome else []

    def get_pending(self, match) -> dict | None:
        outcome = getattr(match, "open_outcome", None)
        if outcome is None:
            return None
        by = outcome.reported_by
        return {
            "status": outcome.status,
            "reported_by": by.get_username() if by else None,
            "result": outcome.payload,
            "note": outcome.note,
        }


class BracketMatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField()
    position = serializers.IntegerField()
    player_a = PlayerRefSerializer(allow_null=True)
    player_b = PlayerRefSerializer(allow_null=True)
    bye = serializers.BooleanField()
    winner = PlayerRefSerializer(allow_null=True)
    status = serializers.CharField()
    result = serializers.CharField()
    needs_resolution = serializers.BooleanField()


class StandingSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    round_reached = serializers.IntegerField()


class BracketSerializer(serializers.Serializer):
    rounds = serializers.ListField(child=BracketMatchSerializer(many=True))
    third_place = BracketMatchSerializer(allow_null=True)
    standings = StandingSerializer(many=True)


def bracket_match(match) -> dict:
    return {
        "id": match.pk,
        "round": match.round,
        "position": match.position,
        "player_a": player_ref(match.player_a),
        "player_b": player_ref(match.player_b),
        "bye": match.bye,
        "winner": player_ref(match.winner),
        "status": match.status,
        "result": match.result,
        "needs_resolution": match.needs_resolution,
    }


def bracket_json(tournament) -> dict:
    data = reads.bracket_of(tournament)
    return {
        "rounds": [[bracket_match(m) for m in matches] for _label, matches in data.rounds],
        "third_place": bracket_match(data.third_place) if data.third_place else None,
        "standings": [
            {k: row[k] for k in ("place", "player", "name", "round_reached")}
            for row in data.standings
        ],
    }


class TournamentFilter(filters.FilterSet):
    season = IdFilter(field_name="season_id")

    class Meta:
        model = Tournament
        fields = ["club__slug", "status", "season"]


# --- Viewsets --------------------------------------------------------------------------------

# The wrong moment: entries closed, check-in not open, a move the tournament cannot make,
# a result already decided, a second confirmation, players not known yet (Sputo issue).
CONFLICTS = {409}


class TournamentViewSet(
    ClubAccessMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Sputo knockout tournaments of the clubs you can see. Admins create, change (in draft
    and registration), open check-in and draw; players enter and check themselves in."""

    model = Tournament
    queryset = Tournament.objects.none()  # the schema's model; get_queryset filters
    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter
    ordering_fields = ["starts_at", "name"]
    parser_classes = json_parsers()  # options are an object: JSON, not a form
    api_errors = {
        "update": CONFLICTS,
        "partial_update": CONFLICTS,
        "entrants": CONFLICTS,
        "remove_entrant": CONFLICTS,
        "check_in": CONFLICTS,
        "draw": CONFLICTS,
    }

    def get_queryset(self):
        return super().get_queryset().select_related("club")

    def get_serializer_class(self):
        if self.action in {"update", "partial_update"}:
            return TournamentUpdateSerializer
        return TournamentSerializer

    def role_to_write(self, obj) -> str | None:
        if self.action in ("entrants", "check_in", "remove_entrant"):
            return Role.MEMBER
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
            return Response(EntrantSerializer(entrants, many=True).data)
        data = PlayerIdSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        player = _player(tournament, data.validated_data["player"])
        entrant = services.add_entrant(tournament=tournament, player=player, by=request.user)
        return Response(EntrantSerializer(entrant).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=r"entrants/(?P<entrant_id>[0-9]{1,18})")
    def remove_entrant(self, request, pk=None, entrant_id=None):
        """Withdraw an entry before the draw (the player, a scorer or an admin)."""
        tournament = self.get_object()
        entrant = get_object_or_404(tournament.entrants.select_related("player"), pk=entrant_id)
        services.remove_entrant(entrant=entrant, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

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
        finished."""
        return Response(bracket_json(self.get_object()))


def _player(tournament, player_id) -> Player:
    """A player of the tournament's club. Another id is a 400 naming ``player``, as the
    Sputo issue's contract says ("an unknown player"), not the 404 of other bodies."""
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
        return (
            super()
            .get_queryset()
            .select_related(
                "tournament", "club", "player_a", "player_b", "winner", "tournament__house_rules"
            )
        )

    def role_to_write(self, obj) -> str | None:
        return self.step_role(self.action)

    def _answer(self, match, code=status.HTTP_200_OK):
        match = self.get_queryset().get(pk=match.pk)
        outcome = reads.open_outcomes([match.pk]).get(match.pk)
        match.open_outcome = outcome
        match.status = reads.match_status(match, outcome.status if outcome else None)
        return Response(MatchSerializer(match).data, status=code)

    def retrieve(self, request, *args, **kwargs):
        return self._answer(self.get_object())

    # --- The result cycle's steps (``result_steps``): how this game's bodies read

    def step_subject(self, request, **kwargs):
        return self.get_object()

    def step_answer(self, subject, step, code=status.HTTP_200_OK):
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
