"""Sputo tournaments: one keyword-only service per write, for the pages and the API alike.

The life cycle: draft -> registration -> check-in -> running (the draw) -> finished, or
cancelled. Entrants come and go before the draw; the draw seeds them, drops whoever did not
check in (when check-in was opened) and creates every match in a constant number of
queries. Results go through the shared result cycle (``matches.results``); what a result
changes in the bracket is planned by ``matches.sputo.bracket.settle`` and written here, the
same plan a correction's preview shows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import access_club
from clubs.models import Club, Player, Role
from clubs.services import add_guest
from matches.boards.models import PlayerRating
from matches.results import steps
from matches.results.adapters import adapter_for
from matches.results.models import OPEN, Outcome
from matches.sputo import bracket, seating, stages
from matches.sputo.bracket_changes import boards_changed, build_knockout, expected_seats
from matches.sputo.models import (
    BEFORE_DRAW,
    KNOCKOUT_FORMATS,
    Entrant,
    Format,
    Seeding,
    Tournament,
    TournamentMatch,
    TournamentStatus,
    Variant,
)
from matches.sputo.tasks import update_sputo_ratings
from matches.sputo.webhooks import announce_ready
from plumbing.errors import Conflict, not_found
from rules.errors import RulesError
from rules.sputo import Options

EDITABLE = [
    "name",
    "starts_at",
    "venue",
    "variant",
    "options",
    "best_of",
    "final_best_of",
    "third_place",
    "seeding",
    "season",
    "format",
    "grand_final_reset",
    "legs",
    "groups",
    "advance",
    "knockout_format",
    "swiss_rounds",
    "capacity",
    "forbidden_pairs",
    "tables",
]

#: The fields of a format, and the formats each makes sense in.
FORMAT_FIELDS = {
    "grand_final_reset": {Format.DOUBLE_ELIMINATION, Format.GROUPS_THEN_KNOCKOUT},
    "legs": {Format.ROUND_ROBIN, Format.GROUPS_THEN_KNOCKOUT},
    "groups": {Format.GROUPS_THEN_KNOCKOUT},
    "advance": {Format.GROUPS_THEN_KNOCKOUT},
    "knockout_format": {Format.GROUPS_THEN_KNOCKOUT},
    "swiss_rounds": {Format.SWISS},
    "forbidden_pairs": {Format.SWISS},
    "third_place": {Format.SINGLE_ELIMINATION, Format.GROUPS_THEN_KNOCKOUT},
    "final_best_of": {
        Format.SINGLE_ELIMINATION,
        Format.DOUBLE_ELIMINATION,
        Format.GROUPS_THEN_KNOCKOUT,
    },
}
#: What a format's fields are when it is chosen and they are not given.
FORMAT_DEFAULTS = {
    "grand_final_reset": True,
    "legs": 1,
    "groups": None,
    "advance": None,
    "knockout_format": Format.SINGLE_ELIMINATION,
    "swiss_rounds": None,
    "forbidden_pairs": [],
}

MOVES = {
    TournamentStatus.DRAFT: {TournamentStatus.REGISTRATION, TournamentStatus.CANCELLED},
    TournamentStatus.REGISTRATION: {
        TournamentStatus.DRAFT,
        TournamentStatus.CHECK_IN,
        TournamentStatus.CANCELLED,
    },
    TournamentStatus.CHECK_IN: {TournamentStatus.REGISTRATION, TournamentStatus.CANCELLED},
    TournamentStatus.RUNNING: {TournamentStatus.CANCELLED},
    TournamentStatus.FINISHED: set(),
    TournamentStatus.CANCELLED: set(),
}


def _clean(values: dict, *, club: Club) -> dict:
    """Validated tournament fields (``ValidationError`` naming the field)."""
    cleaned = dict(values)
    if "name" in cleaned:
        cleaned["name"] = " ".join(str(cleaned["name"] or "").split())
        if not cleaned["name"]:
            raise ValidationError({"name": _("A tournament needs a name.")})
        if len(cleaned["name"]) > 120:
            raise ValidationError({"name": _("At most 120 characters.")})
    if "variant" in cleaned and cleaned["variant"] not in Variant.values:
        raise ValidationError({"variant": _("Choose classic, modern or single_deck.")})
    if "options" in cleaned:
        try:
            cleaned["options"] = Options.parse(cleaned["options"] or {}).as_dict()
        except (RulesError, TypeError, ValueError, AttributeError) as error:
            raise ValidationError(
                {"options": _('Options are {"suit_match": true/false, "splash": true/false}.')}
            ) from error
    for key in ("best_of", "final_best_of"):
        value = cleaned.get(key)
        if key in cleaned and not (value is None and key == "final_best_of"):
            if isinstance(value, bool) or value not in (1, 3, 5):
                raise ValidationError({key: _("A match is best of 1, 3 or 5.")})
    if "seeding" in cleaned and cleaned["seeding"] not in Seeding.values:
        raise ValidationError({"seeding": _("Choose rating, random or manual.")})
    season = cleaned.get("season")
    if season is not None and season.club_id != club.pk:
        raise not_found("season", _("This season is not this club's."))
    if "tables" in cleaned and cleaned["tables"] is not None:
        if not _whole(cleaned["tables"], 1, 500):
            raise ValidationError({"tables": _("Tables are a whole number from 1.")})
    if "capacity" in cleaned and cleaned["capacity"] is not None:
        if not _whole(cleaned["capacity"], 2, 100_000):
            raise ValidationError({"capacity": _("A capacity is a whole number from 2.")})
    if "forbidden_pairs" in cleaned:
        cleaned["forbidden_pairs"] = _forbidden(cleaned["forbidden_pairs"], club=club)
    return cleaned


def _whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _forbidden(value, *, club: Club) -> list[list[int]]:
    """Pairs of the club's players, as ``[[id, id], ...]`` (smaller id first, once each)."""
    shape = _("Forbidden pairings are a list of [player id, player id].")
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError({"forbidden_pairs": shape})
    pairs: set[tuple[int, int]] = set()
    for pair in value:
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not all(_whole(pk, 1, 2**62) for pk in pair)
            or pair[0] == pair[1]
        ):
            raise ValidationError({"forbidden_pairs": shape})
        pairs.add((min(pair), max(pair)))
    ids = {pk for pair in pairs for pk in pair}
    known = set(club.players.active().filter(pk__in=ids).values_list("pk", flat=True))
    if ids - known:
        raise ValidationError(
            {
                "forbidden_pairs": _("No such player in this club: %(ids)s.")
                % {"ids": sorted(ids - known)}
            }
        )
    return [list(pair) for pair in sorted(pairs)]


def _clean_format(merged: dict, given: set[str]) -> dict:
    """The format's own fields checked together (``merged``: the tournament as it would be;
    ``given``: the fields the request sets): a field that does not apply to the format, or
    a format without what it needs, is a ``ValidationError`` naming the field. The fields
    of another format, not given, go back to their defaults."""
    chosen = merged.get("format", Format.SINGLE_ELIMINATION)
    if chosen not in Format.values:
        raise ValidationError(
            {"format": _("Choose %(formats)s.") % {"formats": ", ".join(Format.values)}}
        )
    knockout = merged.get("knockout_format", Format.SINGLE_ELIMINATION)
    for name, applies in FORMAT_FIELDS.items():
        if name in given and chosen not in applies:
            raise ValidationError(
                {
                    name: _("%(field)s does not apply to the format %(format)s.")
                    % {"field": name, "format": chosen}
                }
            )
    changes = {
        name: default
        for name, default in FORMAT_DEFAULTS.items()
        if chosen not in FORMAT_FIELDS[name] and name not in given
    }
    if "grand_final_reset" in given and chosen == Format.GROUPS_THEN_KNOCKOUT:
        if knockout != Format.DOUBLE_ELIMINATION:
            raise ValidationError(
                {"grand_final_reset": _("A grand final needs a double-elimination knockout.")}
            )
    if not isinstance(merged.get("grand_final_reset", True), bool):
        raise ValidationError({"grand_final_reset": _("Answer true or false.")})
    if not isinstance(merged.get("third_place", True), bool):
        raise ValidationError({"third_place": _("Answer true or false.")})
    if merged.get("legs", 1) not in (1, 2) or isinstance(merged.get("legs"), bool):
        raise ValidationError({"legs": _("Everyone meets everyone once or twice: 1 or 2.")})
    if knockout not in KNOCKOUT_FORMATS:
        raise ValidationError(
            {"knockout_format": _("Choose single_elimination or double_elimination.")}
        )
    if chosen == Format.GROUPS_THEN_KNOCKOUT:
        for name, low in (("groups", 1), ("advance", 1)):
            if not _whole(merged.get(name), low, 64):
                raise ValidationError(
                    {
                        name: _("A groups stage needs %(field)s: a whole number from 1 to 64.")
                        % {"field": name}
                    }
                )
        if merged["groups"] * merged["advance"] < 2:
            raise ValidationError(
                {"advance": _("At least two players must go on to the knockout.")}
            )
    if chosen == Format.SWISS and not _whole(merged.get("swiss_rounds"), 1, 30):
        raise ValidationError(
            {"swiss_rounds": _("A Swiss needs its number of rounds: a whole number from 1 to 30.")}
        )
    return changes


AREA = "sputo"  # the area of the club's pages a tournament's writes change


def _audit_tournament(tournament: Tournament, *, action: str, by, note="", data=None) -> None:
    steps.audit(tournament, action=action, by=by, note=note, data=data, areas=(AREA,))


@transaction.atomic
def create_tournament(*, club: Club, by, name: str, starts_at, **values) -> Tournament:
    """A new tournament in draft (an admin's), under the club's current Sputo house rules."""
    access_club(by, club, at_least=Role.ADMIN)
    unknown = set(values) - set(EDITABLE)
    if unknown:
        raise ValidationError({sorted(unknown)[0]: _("Unknown field.")})
    cleaned = _clean({"name": name, "starts_at": starts_at, **values}, club=club)
    cleaned.update(_clean_format(cleaned, set(values)))
    if cleaned.get("season") is None:
        cleaned["season"] = club.seasons.holding(starts_at)
    tournament = Tournament.objects.create(
        club=club,
        house_rules=club.current_house_rules("sputo"),
        created_by=by,
        **cleaned,
    )
    _audit_tournament(tournament, action="create", by=by)
    return tournament


@transaction.atomic
def set_forbidden_pairs(*, tournament: Tournament, by, pairs) -> Tournament:
    """A Swiss's forbidden pairings (admins: a couple, a family), until its last round: they
    keep apart the rounds not paired yet; the rounds played stay as they were."""
    access_club(by, tournament.club, at_least=Role.ADMIN)
    tournament = _locked(tournament)
    if tournament.format != Format.SWISS:
        raise ValidationError({"forbidden_pairs": _("Only a Swiss has forbidden pairings.")})
    if tournament.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
        raise Conflict(_("This tournament is over."))
    tournament.forbidden_pairs = _forbidden(pairs, club=tournament.club)
    tournament.save(update_fields=["forbidden_pairs"])
    _audit_tournament(
        tournament, action="forbid", by=by, data={"forbidden_pairs": tournament.forbidden_pairs}
    )
    return tournament


def _locked(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)


@transaction.atomic
def update_tournament(*, tournament: Tournament, by, **values) -> Tournament:
    """Change a tournament's details (draft and registration only) or move it along its
    life cycle (``status``: registration, check-in, back, or cancelled)."""
    access_club(by, tournament.club, at_least=Role.ADMIN)
    tournament = _locked(tournament)
    status = values.pop("status", None)
    unknown = set(values) - set(EDITABLE)
    if unknown:
        raise ValidationError({sorted(unknown)[0]: _("Unknown field.")})
    if set(values) == {"forbidden_pairs"} and not tournament.is_open_for_changes:
        return set_forbidden_pairs(tournament=tournament, by=by, pairs=values["forbidden_pairs"])
    if values:
        if not tournament.is_open_for_changes:
            raise Conflict(_("A tournament can be changed only in draft or registration."))
        cleaned = _clean(values, club=tournament.club)
        _capacity_change(tournament, cleaned, by=by)
        merged = {name: getattr(tournament, name) for name in EDITABLE if name != "season"}
        merged.update(cleaned)
        cleaned.update(_clean_format(merged, set(values) - _unchanged(tournament, cleaned)))
        for key, value in cleaned.items():
            setattr(tournament, key, value)
        tournament.save()
    if status is not None and status != tournament.status:
        if status not in TournamentStatus.values:
            raise ValidationError({"status": _("Unknown status.")})
        if status not in MOVES[tournament.status]:
            raise Conflict(
                _("A tournament cannot go from %(from)s to %(to)s.")
                % {
                    "from": tournament.get_status_display(),
                    "to": TournamentStatus(status).label,
                }
            )
        before = tournament.status
        tournament.status = status
        tournament.save(update_fields=["status"])
        _audit_tournament(tournament, action="status", by=by, data={"from": before, "to": status})
        if tournament.is_drawn:
            boards_changed(tournament.club_id)  # a drawn tournament cancelled
    return tournament


def _capacity_change(tournament: Tournament, cleaned: dict, *, by) -> None:
    """A capacity below the places taken is refused; a larger one (or none) takes in as
    many from the waiting list."""
    if "capacity" not in cleaned:
        return
    capacity, taken = cleaned["capacity"], tournament.places_taken()
    if capacity is not None and capacity < taken:
        raise ValidationError(
            {
                "capacity": _("%(n)s players have a place already: the capacity cannot be less.")
                % {"n": taken}
            }
        )
    waiting = tournament.entrants.filter(waiting=True).count()
    places = waiting if capacity is None else min(waiting, capacity - taken)
    if places:
        _promote(tournament, by=by, places=places)


def _unchanged(tournament: Tournament, cleaned: dict) -> set[str]:
    """The fields a full update (PUT) sends again as they are: not a choice of the format's
    fields, so not refused for a format they do not apply to."""
    return {
        name
        for name, value in cleaned.items()
        if name in FORMAT_FIELDS and getattr(tournament, name) == value
    }


def _may_act_for(by, club: Club, player: Player) -> bool:
    access = access_club(by, club)
    return access.is_scorer or (access.is_member and player.user_id == by.pk)


@transaction.atomic
def add_entrant(*, tournament: Tournament, player: Player, by) -> Entrant:
    """Enter a player (a scorer or an admin enters anyone; a member enters themselves).
    A late entry once check-in is open is checked in at once."""
    access = access_club(by, tournament.club, at_least=Role.MEMBER)
    tournament = _locked(tournament)
    if player.club_id != tournament.club_id or player.merged_into_id is not None:
        raise ValidationError({"player": _("This is not a player of this club.")})
    if not (access.is_scorer or player.user_id == by.pk):
        raise PermissionDenied(_("Members enter themselves; a scorer or an admin enters others."))
    if tournament.status not in BEFORE_DRAW:
        raise Conflict(_("Entries are closed: the draw is made."))
    if tournament.status == TournamentStatus.DRAFT and not access.is_admin:
        raise Conflict(_("Registration is not open yet."))
    if tournament.entrants.filter(player=player).exists():
        raise Conflict(_("%(name)s is already entered.") % {"name": player.display_name})
    full = tournament.capacity is not None and tournament.places_taken() >= tournament.capacity
    late = tournament.status == TournamentStatus.CHECK_IN and not full
    entrant = Entrant.objects.create(
        tournament=tournament,
        player=player,
        checked_in_at=timezone.now() if late else None,
        waiting=full,
    )
    _audit_tournament(
        tournament, action="enter", by=by, data={"player": player.pk, "waiting": full}
    )
    return entrant


def waiting_position(entrant: Entrant) -> int | None:
    """Where ``entrant`` stands on its tournament's waiting list (1: next in), or None."""
    if not entrant.waiting:
        return None
    ahead = Entrant.objects.filter(tournament_id=entrant.tournament_id, waiting=True).filter(
        Q(entered_at__lt=entrant.entered_at) | Q(entered_at=entrant.entered_at, pk__lt=entrant.pk)
    )
    return ahead.count() + 1


def waiting_positions(tournament: Tournament) -> dict[int, int]:
    """Entrant id -> place on the waiting list, for the whole list (one query)."""
    waiting = tournament.entrants.filter(waiting=True).order_by("entered_at", "pk")
    return {pk: n for n, pk in enumerate(waiting.values_list("pk", flat=True), 1)}


def _promote(tournament: Tournament, *, by, places: int = 1) -> list[Entrant]:
    """The first ``places`` of the waiting list are in (an inbox item and a push tell
    them, ``Tournament.inbox_waiting``); checked in at once if check-in is open."""
    promoted = list(tournament.entrants.filter(waiting=True).order_by("entered_at", "pk")[:places])
    now = timezone.now()
    for entrant in promoted:
        entrant.waiting, entrant.promoted_at = False, now
        if tournament.status == TournamentStatus.CHECK_IN:
            entrant.checked_in_at = now
    Entrant.objects.bulk_update(promoted, ["waiting", "promoted_at", "checked_in_at"])
    if promoted:
        _audit_tournament(
            tournament, action="promote", by=by, data={"players": [e.player_id for e in promoted]}
        )
    return promoted


@dataclass(frozen=True)
class BulkEntry:
    """What :func:`add_entrants` did: the new entrants in the order given, and the guests it
    created on the way (by name)."""

    entrants: list[Entrant]
    new_guests: list[Player]


def _names(lines) -> list[str]:
    """Pasted names, one a line: spaces tidied, blank lines dropped."""
    return [" ".join(str(line).split()) for line in lines if str(line).strip()]


@transaction.atomic
def add_entrants(
    *, tournament: Tournament, by, players: list[Player] = (), names: list[str] = ()
) -> BulkEntry:
    """Enter many at once (scorers and admins): ``players`` ticked from the club's list, and
    ``names`` pasted one a line. A name is the club's player of that name (any case), or a
    new guest created by that name. All or nothing: a player already entered, named twice
    or not of this club refuses the whole list, each problem named
    (``ValidationError`` on ``players`` / ``names``), and no guest is created."""
    access = access_club(by, tournament.club, at_least=Role.SCORER)
    tournament = _locked(tournament)
    club = tournament.club
    if tournament.status not in BEFORE_DRAW:
        raise Conflict(_("Entries are closed: the draw is made."))
    if tournament.status == TournamentStatus.DRAFT and not access.is_admin:
        raise Conflict(_("Registration is not open yet."))
    names = _names(names)
    if not players and not names:
        raise ValidationError({"players": _("Tick the players present or paste their names.")})
    entered = set(tournament.entrants.values_list("player_id", flat=True))
    known = {p.display_name.casefold(): p for p in club.players.active()}
    problems: dict[str, list[str]] = {"players": [], "names": []}
    chosen: list[tuple[Player | None, str]] = []  # (a player, or None: a guest to create)
    seen: set = set()

    def take(field: str, player: Player | None, name: str) -> None:
        key = player.pk if player else name.casefold()
        if key in seen:
            problems[field].append(_("%(name)s is listed twice.") % {"name": name})
        elif player is not None and player.pk in entered:
            problems[field].append(_("%(name)s is already entered.") % {"name": name})
        else:
            seen.add(key)
            chosen.append((player, name))

    for player in players:
        if player.club_id != club.pk or player.merged_into_id is not None:
            problems["players"].append(
                _("%(name)s is not a player of this club.") % {"name": player.display_name}
            )
        else:
            take("players", player, player.display_name)
    for name in names:
        if len(name) > Player._meta.get_field("display_name").max_length:
            problems["names"].append(_("A name can be at most 80 characters long."))
            continue
        player = known.get(name.casefold())
        take("names", player, player.display_name if player else name)
    if problems["players"] or problems["names"]:
        raise ValidationError({field: found for field, found in problems.items() if found})
    late = timezone.now() if tournament.status == TournamentStatus.CHECK_IN else None
    free = None if tournament.capacity is None else tournament.capacity - tournament.places_taken()
    new_guests, entrants = [], []
    for n, (player, name) in enumerate(chosen):
        if player is None:
            player = add_guest(club=club, display_name=name)
            new_guests.append(player)
        full = free is not None and n >= free  # past the capacity: the waiting list, in order
        entrants.append(
            Entrant(
                tournament=tournament,
                player=player,
                checked_in_at=None if full else late,
                waiting=full,
            )
        )
    Entrant.objects.bulk_create(entrants)
    _audit_tournament(
        tournament,
        action="enter_many",
        by=by,
        data={"players": [e.player_id for e in entrants], "guests": [g.pk for g in new_guests]},
    )
    return BulkEntry(entrants=entrants, new_guests=new_guests)


@transaction.atomic
def remove_entrant(*, entrant: Entrant, by) -> None:
    """A withdrawal before the draw (the player, a scorer or an admin)."""
    tournament = _locked(entrant.tournament)
    if not _may_act_for(by, tournament.club, entrant.player):
        raise PermissionDenied(_("Only the player, a scorer or an admin may withdraw an entry."))
    if tournament.status not in BEFORE_DRAW:
        raise Conflict(_("After the draw a player cannot withdraw; report a walkover instead."))
    player, had_a_place = entrant.player_id, not entrant.waiting
    entrant.delete()
    _audit_tournament(tournament, action="withdraw_entry", by=by, data={"player": player})
    if had_a_place:
        _promote(tournament, by=by)


def match_to_play(entrant: Entrant) -> TournamentMatch | None:
    """The match ``entrant``'s player is due to play now (both seats known, no result)."""
    pk = entrant.player_id
    return (
        entrant.tournament.matches.filter(Q(player_a_id=pk) | Q(player_b_id=pk), result="")
        .filter(player_a__isnull=False, player_b__isnull=False, needs_resolution=False)
        .select_related("player_a", "player_b", "tournament")
        .order_by("round")
        .first()
    )


@transaction.atomic
def replace_from_waiting_list(*, entrant: Entrant, by) -> Entrant:
    """After the draw, instead of a walkover (an admin): the first of the waiting list takes
    the place of ``entrant``, who has not played yet, in every match still to play where
    ``entrant`` sits, with ``entrant``'s seed; ``entrant`` is marked absent. Someone who
    has played already, an empty waiting list, or a tournament not running: a
    ``Conflict`` that says so. The new entrant."""
    access_club(by, entrant.tournament.club, at_least=Role.ADMIN)
    tournament = _locked(entrant.tournament)
    entrant = Entrant.objects.select_related("player").get(pk=entrant.pk)
    if tournament.status != TournamentStatus.RUNNING:
        raise Conflict(_("The tournament is not running."))
    if entrant.waiting or entrant.no_show:
        raise Conflict(_("%(name)s has no place to give.") % {"name": entrant.player.display_name})
    pk = entrant.player_id
    theirs = tournament.matches.filter(Q(player_a_id=pk) | Q(player_b_id=pk))
    if theirs.exclude(result__in=["", bracket.BYE]).exists():
        raise Conflict(
            _("%(name)s has played already: withdraw them instead (a walkover).")
            % {"name": entrant.player.display_name}
        )
    if Outcome.objects.filter(
        content_type=ContentType.objects.get_for_model(TournamentMatch),
        object_id__in=list(theirs.values_list("pk", flat=True)),
        status__in=OPEN,
    ).exists():
        raise Conflict(_("A result of theirs waits for confirmation: decide it first."))
    first = tournament.entrants.filter(waiting=True).order_by("entered_at", "pk").first()
    if first is None:
        raise Conflict(_("Nobody is on the waiting list."))
    seed, entrant.seed, entrant.no_show = entrant.seed, None, True
    entrant.save(update_fields=["seed", "no_show"])
    first.waiting, first.seed, first.promoted_at = False, seed, timezone.now()
    first.checked_in_at = first.checked_in_at or timezone.now()
    first.save(update_fields=["waiting", "seed", "promoted_at", "checked_in_at"])
    new = first.player_id
    # The three seats in one statement, so that the winner (of a bye) stays a player.
    theirs.update(
        **{
            name: Case(
                When(**{name: pk}, then=Value(new)),
                default=F(name),
                output_field=TournamentMatch._meta.get_field(name).target_field,
            )
            for name in ("player_a", "player_b", "winner")
        }
    )
    _audit_tournament(
        tournament, action="replace", by=by, data={"absent": pk, "in": new, "seed": seed}
    )
    boards_changed(tournament.club_id)
    return first


@transaction.atomic
def withdraw_after_draw(*, entrant: Entrant, by) -> TournamentMatch:
    """A player leaves a running tournament (admins): the match they are due to play goes
    to the opponent by walkover, through the result cycle (in force at once, audited; only
    a correction changes it). A player with no match to play now (out already, or the next
    opponent not known yet) cannot be withdrawn yet: a ``Conflict`` that says so."""
    access_club(by, entrant.tournament.club, at_least=Role.ADMIN)
    tournament = _locked(entrant.tournament)
    if tournament.status != TournamentStatus.RUNNING:
        raise Conflict(_("After the draw a player cannot withdraw; report a walkover instead."))
    match = match_to_play(entrant)
    if match is None:
        raise Conflict(
            _(
                "%(name)s has no match to play now (out already, or the next opponent is "
                "not known yet): withdraw them once their next match is ready."
            )
            % {"name": entrant.player.display_name}
        )
    mine_a = match.player_a_id == entrant.player_id
    opponent = match.player_b_id if mine_a else match.player_a_id
    steps.report_outcome(subject=match, payload={"walkover": opponent}, by=by)
    _audit_tournament(
        tournament,
        action="withdraw_after_draw",
        by=by,
        data={"player": entrant.player_id, "match": match.pk},
    )
    return match


@transaction.atomic
def set_manual_seed(*, entrant: Entrant, seed: int | None, by) -> Entrant:
    access_club(by, entrant.tournament.club, at_least=Role.ADMIN)
    tournament = _locked(entrant.tournament)
    if tournament.status not in BEFORE_DRAW:
        raise Conflict(_("The draw is made."))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 1):
        raise ValidationError({"manual_seed": _("A seed is a whole number from 1.")})
    entrant.manual_seed = seed
    entrant.save(update_fields=["manual_seed"])
    return entrant


@transaction.atomic
def check_in(*, tournament: Tournament, player: Player, by) -> Entrant:
    """Check a player in (the player, a scorer or an admin) while check-in is open. Twice
    is the same as once."""
    access_club(by, tournament.club, at_least=Role.MEMBER)
    tournament = _locked(tournament)
    entrant = tournament.entrants.filter(player=player).select_related("player").first()
    if entrant is None:  # the entries say otherwise
        raise Conflict(_("This player is not entered."))
    if not _may_act_for(by, tournament.club, player):
        raise PermissionDenied(_("Only the player, a scorer or an admin may check in."))
    if tournament.status != TournamentStatus.CHECK_IN:
        raise Conflict(_("Check-in is not open."))
    if entrant.waiting:
        raise Conflict(_("%(name)s is on the waiting list.") % {"name": player.display_name})
    if entrant.checked_in_at is None:
        entrant.checked_in_at = timezone.now()
        entrant.save(update_fields=["checked_in_at"])
        _audit_tournament(tournament, action="check_in", by=by, data={"player": player.pk})
    return entrant


# --- The draw ------------------------------------------------------------------------------


def seeded(tournament: Tournament, entrants: list[Entrant]) -> list[Entrant]:
    """The entrants in seed order by the tournament's method. By rating: the conservative
    Glicko-2 rating, highest first; the unrated last, in random order from the recorded
    seed. Random: shuffled by the recorded seed. Manual: the admin's numbers, the rest
    after them in order of entry."""
    rng = random.Random(tournament.seed)
    by_id = sorted(entrants, key=lambda e: e.player_id)
    if tournament.seeding == Seeding.RANDOM:
        rng.shuffle(by_id)
        return by_id
    if tournament.seeding == Seeding.MANUAL:
        return sorted(
            entrants,
            key=lambda e: (e.manual_seed is None, e.manual_seed or 0, e.entered_at, e.pk),
        )
    ratings = dict(
        PlayerRating.objects.filter(
            club_id=tournament.club_id, game="sputo", player_id__in=[e.player_id for e in entrants]
        ).values_list("player_id", "display")
    )
    rated = sorted(
        (e for e in by_id if e.player_id in ratings),
        key=lambda e: (-ratings[e.player_id], e.player_id),
    )
    unrated = [e for e in by_id if e.player_id not in ratings]
    rng.shuffle(unrated)
    return rated + unrated


@transaction.atomic
def draw_tournament(*, tournament: Tournament, by) -> Tournament:
    """Make the bracket (an admin): seeds, byes to the top seeds, every match created at
    once. When check-in was opened, whoever did not check in is dropped."""
    access_club(by, tournament.club, at_least=Role.ADMIN)
    tournament = _locked(tournament)
    if tournament.status not in (TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN):
        raise Conflict(_("The draw is made from registration or check-in."))
    entrants = list(tournament.entrants.filter(waiting=False))  # the waiting list stays out
    if tournament.status == TournamentStatus.CHECK_IN:
        present = [e for e in entrants if e.checked_in_at is not None]
    else:
        present = entrants
    if len(present) < 2:
        raise Conflict(_("A draw needs at least two players (checked in, once check-in is open)."))
    order = seeded(tournament, present)
    for n, entrant in enumerate(order, 1):
        entrant.seed = n
    Entrant.objects.bulk_update(order, ["seed"])
    absent = [e.pk for e in entrants if e not in present]
    if absent:
        Entrant.objects.filter(pk__in=absent).update(no_show=True)
    now = timezone.now()
    if tournament.has_table:
        matches = stages.draw_stage(tournament, [e.player_id for e in order], now=now)
    else:
        player_of_seed = {n: e.player_id for n, e in enumerate(order, 1)}
        matches = build_knockout(tournament, player_of_seed, now=now)
    tournament.status = TournamentStatus.RUNNING
    tournament.drawn_at = now
    tournament.save(update_fields=["status", "rounds", "drawn_at"])
    if tournament.tables:
        seating.assign(tournament.club_id)
    boards_changed(tournament.club_id)
    announce_ready(tournament, matches)
    _audit_tournament(
        tournament,
        action="draw",
        by=by,
        data={
            "seeding": tournament.seeding,
            "seed": tournament.seed,
            "entrants": len(order),
            "format": tournament.format,
            # The lot that orders players level on everything in a table (``tables.lots``).
            "lots": sorted(lots, key=lots.get) if (lots := stages.lots_of(tournament)) else [],
        },
    )
    return tournament


def carry_match_seats(*, source: Player, target: Player) -> None:
    """A guest merge: ``source``'s seats in the bracket become ``target``'s, the three
    columns in one statement (the winner stays one of the players); the ratings follow."""
    seats = ("player_a", "player_b", "winner")
    rows = TournamentMatch.objects.filter(
        Q(player_a=source) | Q(player_b=source) | Q(winner=source)
    )
    moved = rows.update(
        **{
            name: Case(
                When(**{name: source}, then=Value(target.pk)),
                default=F(name),
                output_field=TournamentMatch._meta.get_field(name).target_field,
            )
            for name in seats
        }
    )
    if moved:
        update_sputo_ratings.delay_on_commit(club_id=target.club_id, player_ids=[target.pk])


@transaction.atomic
def resolve_match(
    *, match: TournamentMatch, by, action: str, winner: int | None = None, reason: str = ""
) -> TournamentMatch:
    """An admin resolves a flagged match: ``replay`` (its result is voided and the right
    players play it) or ``award`` (the right players are seated and ``winner`` is given
    the match)."""
    adapter = adapter_for(match)
    steps.require("resolve", steps.actor(match, by), match)
    match = adapter.lock(match)
    if not match.needs_resolution:
        raise Conflict(_("This match does not need resolving."))
    reason = " ".join(str(reason or "").split()) or _("Resolved after a correction.")
    if action == "replay":
        steps.void_outcome(subject=match, by=by, reason=reason, step="resolve")
    elif action == "award":
        a, b = expected_seats(match)
        if winner not in (a, b) or winner is None:
            raise ValidationError({"winner": _("Award the match to one of its right players.")})
        before = (match.player_a_id, match.player_b_id)
        match.player_a_id, match.player_b_id = a, b
        match.needs_resolution = False
        match.winner_id = None
        match.save(update_fields=["player_a", "player_b", "needs_resolution", "winner"])
        steps.audit(
            match, action="reseat", by=by, note=reason, data={"before": before, "after": [a, b]}
        )
        steps.correct_outcome(
            subject=adapter.load(match),
            by=by,
            payload={"awarded": winner},
            reason=reason,
            step="resolve",
        )
    else:
        raise ValidationError({"action": _("Choose replay or award.")})
    return adapter.load(match)
