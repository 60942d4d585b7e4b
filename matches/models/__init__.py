"""The games' models, one module per concern; everything is importable from here.

- ``records``: ``GameRecord`` (a checked record) and its seats;
- ``outcomes``: the result cycle shared by the three games (``Outcome``, ``AuditEntry``,
  ``OutcomeSubject``);
- one module per game.
"""

from matches.models.nights import NightReport
from matches.models.outcomes import AuditEntry, Outcome, OutcomeStatus, OutcomeSubject
from matches.models.ratings import PlayerRating, RatingChange
from matches.models.records import GameRecord, GameRecordQuerySet, GameSeat
from matches.models.singapore import Hand, SingaporeStats, TableSeat, TableSession
from matches.models.spazzumazz import (
    SpazzumazzBoard,
    SpazzumazzGame,
    SpazzumazzHeadToHead,
    SpazzumazzPlace,
    SpazzumazzStats,
    SpazzumazzTitle,
)
from matches.models.sputo import CalendarFeed, Entrant, Tournament, TournamentMatch

__all__ = [
    "AuditEntry",
    "CalendarFeed",
    "Entrant",
    "GameRecord",
    "GameRecordQuerySet",
    "GameSeat",
    "NightReport",
    "Hand",
    "Outcome",
    "OutcomeStatus",
    "OutcomeSubject",
    "PlayerRating",
    "RatingChange",
    "SpazzumazzBoard",
    "SingaporeStats",
    "SpazzumazzGame",
    "SpazzumazzHeadToHead",
    "SpazzumazzPlace",
    "SpazzumazzStats",
    "SpazzumazzTitle",
    "TableSeat",
    "TableSession",
    "Tournament",
    "TournamentMatch",
]
