"""Who was at a club night: whoever played a game in force that night (a hand, a match, a
Spazz'u'mazz game) or sat at one of the club's tables of that day. Read from the results,
never stored: it cannot drift from them. Three queries, the night's own rows."""

from __future__ import annotations

from django.db.models import Q

from matches import boards
from matches.nights.models import ClubNight
from matches.results.models import GameRecord, GameSeat
from matches.singapore.models import TableSeat


def attended(night: ClubNight) -> set[int]:
    day = boards.night_of(night.starts_at)
    start, end = boards.night_bounds(day)
    records = GameRecord.objects.in_force().filter(
        club_id=night.club_id, played_at__gte=start, played_at__lt=end
    )
    played = set(
        GameSeat.objects.filter(game_record__in=records).values_list("player_id", flat=True)
    )
    # A table of the day, or one opened after midnight (dated the next day) joined that night.
    seated = set(
        TableSeat.objects.filter(session__club_id=night.club_id)
        .filter(Q(session__date=day) | Q(joined_at__gte=start, joined_at__lt=end))
        .values_list("player_id", flat=True)
    )
    return played | seated
