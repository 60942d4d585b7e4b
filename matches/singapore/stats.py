"""Singapore statistics per player and season, from the hands in force.

Every figure comes from the checked records (``GameRecord`` in force, game Singapore) and
their seats. Two ways keep the rows, both under a lock on the club's row (two runs for one
club wait for each other), both adding the hands in the same order with the same code:

- **a delta** for a hand that came into force new (:func:`add_record`), later than the
  last hand each of its people's rows counts (``last_played_at``, ``last_record_id``):
  the hand is added to those rows. It costs the hand's people, whatever their history
  (the row's ``history`` list grows by one point).
- **a rebuild** otherwise (a correction, a void, a guest merge, a hand entered late,
  ``manage.py recompute_stats``): it deletes the rows of the people concerned and writes
  them again from what is in force now. It costs their hands of the season.

Either is idempotent and safe in any order: a delta that finds a row already past its hand
rebuilds instead.

- ``hands_played``: hands dealt or played as the opponent; ``hands_won``: hands closed.
- ``net_points``: the sum of the person's balance in every hand (covers and side bets too);
  ``net_money``: the same in money, over the tables played for money in the club's currency.
- closings: the hands the person closed, by multiplier (simple ×1, double ×2, quintuple ×5,
  and ×4 / ×3 for ten-card sequences with jokers where the house rules use them).
- ``biggest_hand``: the most points a quota of a hand the person closed.
- quotas won and lost: the quotas on the side that won or lost, as dealer (the covered
  ones), as coverer, as side bettor.
- ``history``: the running balance after each hand of the season, for the player's page.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Q

from clubs.models import Club
from matches import boards
from matches.results.models import GameRecord, GameSeat
from matches.singapore.models import Hand, SingaporeStats

CLOSING_FIELDS = {
    1: "won_simple",
    2: "won_double",
    5: "won_quintuple",
    4: "won_quadruple",
    3: "won_triple",
}


def _in_seasons(season_ids) -> Q:
    """In one of ``season_ids``, where None stands for no season."""
    where = Q(season__in=[s for s in season_ids if s is not None])
    if None in season_ids:
        where |= Q(season__isnull=True)
    return where


def _records(club: Club, player_ids, season_ids):
    records = GameRecord.objects.in_force().filter(club=club, game="singapore")
    if player_ids is not None:
        records = records.filter(
            pk__in=GameSeat.objects.filter(player__in=player_ids).values("game_record")
        )
    if season_ids is not None:
        records = records.filter(_in_seasons(season_ids))
    return records.order_by("played_at", "pk").values_list(*RECORD_FIELDS)


RECORD_FIELDS = (
    "pk",
    "season_id",
    "played_at",
    "record",
    "result",
    "outcome__content_type",
    "outcome__object_id",
)


def _money(club: Club, rows) -> dict[int, Decimal]:
    """The point value of each hand played for money in the club's currency."""
    hand_type = ContentType.objects.get_for_model(Hand).pk
    ids = [row[6] for row in rows if row[5] == hand_type]
    found = {}
    for chunk in range(0, len(ids), 5000):
        hands = Hand.objects.filter(
            pk__in=ids[chunk : chunk + 5000],
            session__point_value__isnull=False,
            session__currency=club.currency,
        ).values_list("pk", "session__point_value")
        found.update(dict(hands))
    return {row[0]: found[row[6]] for row in rows if row[5] == hand_type and row[6] in found}


def _seats(record_ids) -> dict[int, dict[str, int]]:
    seats: dict[int, dict[str, int]] = defaultdict(dict)
    for chunk in range(0, len(record_ids), 5000):
        for record_id, name, player_id in GameSeat.objects.filter(
            game_record__in=record_ids[chunk : chunk + 5000]
        ).values_list("game_record", "name_in_record", "player"):
            seats[record_id][name] = player_id
    return seats


def _blank(club, season_id, player_id) -> SingaporeStats:
    return SingaporeStats(
        club=club, season_id=season_id, player_id=player_id, currency=club.currency, history=[]
    )


def compute(club: Club, *, player_ids=None, season_ids=None) -> list[SingaporeStats]:
    """The rows for ``player_ids`` (all: None) in ``season_ids`` (all: None), unsaved."""
    rows = list(_records(club, player_ids, season_ids))
    wanted = set(player_ids) if player_ids is not None else None
    stats: dict[tuple, SingaporeStats] = {}
    _add(club, rows, stats, wanted)
    return list(stats.values())


def _add(club: Club, rows: list, stats: dict[tuple, SingaporeStats], wanted) -> None:
    """Add the records ``rows`` (in order) to ``stats``, the rows of the people ``wanted``
    (everyone: None) by (season, player); a row's running balance is its net points."""
    seats = _seats([row[0] for row in rows])
    money = _money(club, rows)
    for record_id, season_id, played_at, record, result, _ct, _oid in rows:
        stake = record.get("stake") if isinstance(record, dict) else None
        if not stake or "balances" not in result:
            continue
        ids = seats.get(record_id, {})
        dealer, opponent = ids.get(stake["dealer"]), ids.get(stake["opponent"])
        winner = ids.get(stake["winner"])
        dealer_won = winner == dealer
        covered = sum((stake.get("covers") or {}).values())
        quotas_won: dict[int, int] = defaultdict(int)
        quotas_lost: dict[int, int] = defaultdict(int)
        (quotas_won if dealer_won else quotas_lost)[dealer] += covered
        for name, quotas in (stake.get("covers") or {}).items():
            (quotas_lost if dealer_won else quotas_won)[ids.get(name)] += quotas
        for bet in stake.get("side_bets") or []:
            quotas_won[ids.get(bet["backer_of_winner"])] += bet["quotas"]
            quotas_lost[ids.get(bet["backer_of_loser"])] += bet["quotas"]
        value = money.get(record_id)
        for name, points in result["balances"].items():
            player = ids.get(name)
            if player is None or (wanted is not None and player not in wanted):
                continue
            key = (season_id, player)
            row = stats.get(key)
            if row is None:
                row = stats[key] = _blank(club, season_id, player)
            if player in (dealer, opponent):
                row.hands_played += 1
            if player == winner:
                row.hands_won += 1
                field = CLOSING_FIELDS.get(result.get("multiplier"))
                if field:
                    setattr(row, field, getattr(row, field) + 1)
                row.biggest_hand = max(row.biggest_hand, int(result.get("points", 0)))
            row.net_points += points
            if value is not None:
                row.net_money += value * points
            row.quotas_won += quotas_won.get(player, 0)
            row.quotas_lost += quotas_lost.get(player, 0)
            row.history.append([played_at.isoformat(timespec="minutes"), row.net_points])
            row.last_played_at, row.last_record_id = played_at, record_id


@transaction.atomic
def rebuild(club_id: int, *, player_ids=None, season_ids=None) -> int:
    """Rebuild the rows of ``player_ids`` in ``season_ids`` (None: all); returns how many."""
    club = Club.objects.select_for_update().filter(pk=club_id).first()
    if club is None:
        return 0  # deleted meanwhile: nothing to rebuild
    old = SingaporeStats.objects.filter(club=club)
    if player_ids is not None:
        old = old.filter(player__in=player_ids)
    if season_ids is not None:
        old = old.filter(_in_seasons(season_ids))
    old.delete()
    rows = compute(club, player_ids=player_ids, season_ids=season_ids)
    SingaporeStats.objects.bulk_create(rows, batch_size=1000)
    # The cached leaderboards and player pages of the club are out of date (once committed).
    boards.bump(club_id, "singapore")
    return len(rows)


STATS_FIELDS = [
    "hands_played",
    "hands_won",
    "net_points",
    "net_money",
    *CLOSING_FIELDS.values(),
    "biggest_hand",
    "quotas_won",
    "quotas_lost",
    "history",
    "last_played_at",
    "last_record_id",
]


@transaction.atomic
def add_record(club_id: int, *, outcome_id: int, player_ids, season_id) -> int | None:
    """The delta (see the module): the record of the result ``outcome_id``, new in force,
    added to the rows of ``player_ids`` in its season. None if it cannot be (the record is
    no longer in force, or a row counts a later hand already): the caller rebuilds those
    rows instead."""
    club = Club.objects.select_for_update().filter(pk=club_id).first()
    if club is None:
        return 0
    rows = list(
        GameRecord.objects.in_force()
        .filter(club=club, game="singapore", outcome_id=outcome_id)
        .values_list(*RECORD_FIELDS)
    )
    if len(rows) != 1:
        return None
    record_id, season, played_at = rows[0][:3]
    if season != season_id:
        return None
    stored = SingaporeStats.objects.filter(club=club, player__in=player_ids).filter(
        _in_seasons([season])
    )
    stats = {(row.season_id, row.player_id): row for row in stored}
    counted = [(row.last_played_at, row.last_record_id) for row in stats.values()]
    if any(key[0] is None or key >= (played_at, record_id) for key in counted):
        return None
    _add(club, rows, stats, set(player_ids))
    fresh = [row for row in stats.values() if row.pk is None]
    SingaporeStats.objects.bulk_update([r for r in stats.values() if r.pk], STATS_FIELDS)
    SingaporeStats.objects.bulk_create(fresh)
    boards.bump(club_id, "singapore")
    return len(stats)


def rebuild_club(club_id: int) -> str:
    """Every Singapore statistic of the club from scratch (``manage.py recompute_stats``)."""
    with transaction.atomic():
        n = rebuild(club_id)
    return f"singapore: {n} statistics rows"
