"""The games' models, one module per concern; everything is importable from here.

- ``matches.results.models``: the result cycle shared by every game (``Outcome``,
  ``AuditEntry``, ``OutcomeSubject``) and the checked records (``GameRecord``, seats);
- one module per game.
"""

from matches.models.nights import NightReport
from matches.models.ratings import PlayerRating, RatingChange
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
from matches.results.models import (
    AuditEntry,
    GameRecord,
    GameRecordQuerySet,
    GameSeat,
    Outcome,
    OutcomeStatus,
    OutcomeSubject,
)

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
