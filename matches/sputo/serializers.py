"""The Sputo API's serializers: what tournaments, entrants, results and brackets read and
answer as (``matches/sputo/api.py`` serves them)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from clubs.api import ClubSlugField
from clubs.models import Player, Season
from matches.sputo import reads, services, tables
from matches.sputo.models import (
    BEST_OF,
    Entrant,
    Format,
    Seeding,
    Tournament,
    TournamentStatus,
    Variant,
)
from matches.sputo.payload import KEYS as RESULT_KEYS
from plumbing.strict import StrictModelSerializer, StrictQuerySerializer, StrictSerializer
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
    format = serializers.ChoiceField(
        choices=Format.choices,
        required=False,
        help_text=gettext_lazy(
            "single_elimination (the default), double_elimination, "
            "round_robin, groups_then_knockout or swiss; a field of another format is a 400."
        ),
    )
    legs = serializers.ChoiceField(choices=[1, 2], required=False)
    groups = serializers.IntegerField(min_value=1, max_value=64, required=False, allow_null=True)
    advance = serializers.IntegerField(min_value=1, max_value=64, required=False, allow_null=True)
    swiss_rounds = serializers.IntegerField(
        min_value=1, max_value=30, required=False, allow_null=True
    )
    capacity = serializers.IntegerField(
        min_value=2, max_value=100_000, required=False, allow_null=True
    )
    tables = serializers.IntegerField(min_value=1, max_value=500, required=False, allow_null=True)
    forbidden_pairs = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=2**62), min_length=2, max_length=2
        ),
        required=False,
        help_text=gettext_lazy("Swiss: pairs of the club's players never paired together."),
    )

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
    waiting = serializers.SerializerMethodField(
        help_text=gettext_lazy("The place on the waiting list (1: next in), or null: entered.")
    )

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
            "waiting",
        ]
        read_only_fields = fields

    def get_checked_in(self, entrant) -> bool:
        return entrant.checked_in_at is not None

    def get_waiting(self, entrant) -> int | None:
        positions = self.context.get("waiting_positions")
        if positions is not None:
            return positions.get(entrant.pk)
        return services.waiting_position(entrant)


def _player_id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=2**63 - 1, **kwargs)


class PlayerIdSerializer(StrictSerializer):
    player = _player_id(
        help_text=gettext_lazy("A player of the club, by id (another id is a 400 naming it).")
    )


class BulkEntrantsSerializer(StrictSerializer):
    players = serializers.ListField(
        child=_player_id(),
        required=False,
        default=list,
        max_length=500,
        help_text=gettext_lazy("Players of the club, by id (the ones ticked as present)."),
    )
    names = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        default=list,
        max_length=500,
        help_text=gettext_lazy("Names, one an item: the club's player so named, or a new guest."),
    )


class BulkEntrySerializer(serializers.Serializer):
    entrants = EntrantSerializer(many=True)
    new_guests = PlayerRefSerializer(many=True)


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
        # ``in_force``: found by a view that read the match's results with it.
        outcome = match.in_force if hasattr(match, "in_force") else match.outcome_in_force()
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
    bracket = serializers.ChoiceField(
        choices=["main", "third_place", "winners", "losers", "grand_final", "round_robin", "swiss"],
        help_text=gettext_lazy(
            "The bracket of the match's round: main (a single elimination), winners, losers "
            "or grand_final (a double elimination)."
        ),
    )
    loser_to = serializers.IntegerField(
        allow_null=True,
        help_text=gettext_lazy(
            "The match the loser goes to (the losers' bracket, the "
            "third-place match), or null: the loser is out."
        ),
    )


class StandingSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    round_reached = serializers.IntegerField()


class BracketSerializer(serializers.Serializer):
    rounds = serializers.ListField(child=BracketMatchSerializer(many=True))
    brackets = serializers.ListField(
        child=serializers.CharField(),
        help_text=gettext_lazy("Each round's bracket, in the order of rounds."),
    )
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
        "bracket": match.kind,
        "loser_to": getattr(match, "loser_to", None),
    }


def bracket_json(tournament) -> dict:
    data = reads.bracket_of(tournament)
    return {
        "rounds": [[bracket_match(m) for m in matches] for _label, matches in data.rounds],
        "brackets": data.round_parts
        or [tables.KIND_OF_FORMAT.get(tournament.format, "main") for _r in data.rounds],
        "third_place": bracket_match(data.third_place) if data.third_place else None,
        "standings": [
            {k: row[k] for k in ("place", "player", "name", "round_reached")}
            for row in data.standings
        ],
    }


class TableRowSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    points = serializers.IntegerField()
    games_for = serializers.IntegerField()
    games_against = serializers.IntegerField()
    cards = serializers.IntegerField(help_text=gettext_lazy("Sputo's own measure (RULES.md)."))
    buchholz = serializers.IntegerField(allow_null=True)
    median_buchholz = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField()
    why = serializers.CharField(help_text=gettext_lazy("Why the row stands above the next."))


class TableGroupSerializer(serializers.Serializer):
    name = serializers.CharField()
    rows = TableRowSerializer(many=True)


class StandingsSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(choices=["groups", "round_robin", "swiss"])
    groups = TableGroupSerializer(many=True)


class StageMatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    round = serializers.IntegerField()
    round_label = serializers.CharField()
    position = serializers.IntegerField()
    player_a = serializers.IntegerField(allow_null=True)
    player_b = serializers.IntegerField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)
    table = serializers.IntegerField(allow_null=True)
    group = serializers.CharField(allow_null=True)
    bye = serializers.BooleanField()
    result = serializers.CharField()
    status = serializers.CharField()
    why = serializers.CharField(
        allow_null=True, help_text=gettext_lazy("A Swiss pairing's reasons, in words.")
    )


class RoundStartSerializer(StrictSerializer):
    minutes = serializers.IntegerField(
        min_value=1, max_value=240, help_text=gettext_lazy("How long the round lasts.")
    )
    kind = serializers.ChoiceField(
        choices=["main", "winners", "losers", "grand_final", "round_robin", "group", "swiss"],
        required=False,
        help_text=gettext_lazy(
            "Which rounds (a double elimination's losers', say); left out: the stage's "
            "or the knockout's."
        ),
    )


class RoundClockSerializer(serializers.Serializer):
    kind = serializers.CharField()
    round = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()


class RoundQuerySerializer(StrictQuerySerializer):
    round = serializers.IntegerField(required=False, min_value=1, max_value=10_000)


def standings_json(tournament) -> dict:
    found = tables.groups_of(tournament)
    ids = {row.player for group in found for row in group.rows}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))
    swiss = tournament.format == "swiss"
    return {
        "stage": tables.STAGE_OF_FORMAT[tournament.format],
        "groups": [
            {
                "name": group.name,
                "rows": [tables.row_data(row, names, swiss=swiss) for row in group.rows],
            }
            for group in found
        ],
    }


def stage_match(match, names: dict[int, str]) -> dict:
    return {
        "id": match.pk,
        "kind": match.kind,
        "round": match.round,
        "round_label": match.round_label,
        "position": match.position,
        "player_a": match.player_a_id,
        "player_b": match.player_b_id,
        "winner": match.winner_id,
        "table": match.table,
        "group": match.group or None,
        "bye": match.bye,
        "result": match.result,
        "status": match.status,
        "why": tables.pairing_words(match.pairing, names) if match.pairing else None,
    }
