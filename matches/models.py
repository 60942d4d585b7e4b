"""The models of the ``matches`` app, which live in its folders: Django loads them from here.

- ``matches.results.models``: the result cycle shared by every game (``Outcome``,
  ``AuditEntry``, ``OutcomeSubject``) and the checked records (``GameRecord``, seats);
- ``matches.boards.models``: ratings and the end-of-evening reports;
- ``matches.<game>.models``: each game's own.

Code inside ``matches`` imports a model from its own module; this one is for the others
(tests, scripts, the admin).
"""

from matches.boards.models import NightReport, PlayerRating, RatingChange
from matches.championship.models import (
    Championship,
    SeasonEvent,
    SeasonPlace,
    SeasonStanding,
)
from matches.nights.models import ClubNight, NightAnswer
from matches.results.models import (
    AuditEntry,
    GameRecord,
    GameRecordQuerySet,
    GameSeat,
    Outcome,
    OutcomeStatus,
    OutcomeSubject,
)
from matches.singapore.models import Hand, SingaporeStats, TableSeat, TableSession
from matches.spazzumazz.models import (
    SpazzumazzBoard,
    SpazzumazzGame,
    SpazzumazzHeadToHead,
    SpazzumazzPlace,
    SpazzumazzStats,
    SpazzumazzTitle,
)
from matches.sputo.models import CalendarFeed, Entrant, Tournament, TournamentMatch

__all__ = [
    "AuditEntry",
    "CalendarFeed",
    "Championship",
    "ClubNight",
    "NightAnswer",
    "SeasonEvent",
    "SeasonPlace",
    "SeasonStanding",
    "Entrant",
    "GameRecord",
    "GameRecordQuerySet",
    "GameSeat",
    "Hand",
    "NightReport",
    "Outcome",
    "OutcomeStatus",
    "OutcomeSubject",
    "PlayerRating",
    "RatingChange",
    "SingaporeStats",
    "SpazzumazzBoard",
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
