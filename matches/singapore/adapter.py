"""A Singapore hand in the result cycle (``matches.results``).

The dealer and the opponent are the hand's own; everything else is its outcome's payload,
read and checked by ``matches.singapore.payload``. A hand in force posts to the ledger
(``matches.singapore.posting``): a correction reverses the old posting and posts the new
one, a void reverses; either way the players' statistics are rebuilt after commit.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from matches.results.adapters import GameAdapter
from matches.results.models import GameSeat, Outcome
from matches.singapore import posting, tasks
from matches.singapore.models import AREA, TABLE_AREA, Hand
from matches.singapore.payload import check_hand_outcome
from plumbing.errors import Conflict


class SingaporeAdapter(GameAdapter):
    game = "singapore"
    model = Hand
    # A hand is reported as it is recorded (``services.record_hand``): no report step on a
    # hand that exists, whatever became of its result.
    steps = ("confirm", "dispute", "withdraw", "decide", "correct", "void")
    # With what the steps read of it: its table (and the table's club and house rules),
    # its club, season and two players, in the locking query.
    related = ("club", "season", "session__club", "session__house_rules", "dealer", "opponent")
    audit_sentences = {
        "out_of_turn": gettext_lazy("%(who)s allowed the hand out of turn."),
        "import_out_of_turn": gettext_lazy("%(who)s imported the hand, allowing it out of turn."),
        "import": gettext_lazy("The hand was imported."),
    }

    def areas(self, subject) -> tuple[str, ...]:
        return (AREA, TABLE_AREA.format(session_id=subject.session_id))

    def players(self, subject):
        return [subject.dealer, subject.opponent]

    def house_rules(self, subject):
        return subject.session.house_rules

    def url(self, subject):
        return subject.get_absolute_url()

    def ready(self, subject) -> None:
        if subject.session.closed_at is not None:
            raise Conflict(_("This table is closed: no more hands."))

    def check(self, subject, payload, *, actor):
        return check_hand_outcome(subject, payload)

    def applied(self, subject, outcome, *, previous, by, checked):
        if previous is not None:
            posting.reverse_hand(hand=subject, outcome=previous, by=by)
        # Coming into force now, under the hand's lock: a first result's key is new.
        posting.post_hand(hand=subject, outcome=outcome, by=by, checked=checked, new=True)
        if previous is None and checked is not None:  # new in force: its own people
            people = {p.pk for record in checked.records for p in record.players.values()}
            queue_stats(subject, new=outcome, players=sorted(people))
        else:
            queue_stats(subject)

    def voided(self, subject, outcome, *, by):
        posting.reverse_hand(hand=subject, outcome=outcome, by=by)
        queue_stats(subject)


def queue_stats(hand: Hand, *, new: Outcome | None = None, players=None) -> None:
    """Bring up to date, once the transaction commits, the season's statistics of everyone
    in any result of ``hand`` (the one in force and those it replaced): ``new``, a result
    new in force, is added to the rows of its ``players`` as a delta where it can be."""
    if players is None:
        players = sorted(
            set(
                GameSeat.objects.filter(
                    game_record__outcome__object_id=hand.pk,
                    game_record__outcome__content_type__model="hand",
                    game_record__outcome__content_type__app_label="matches",
                ).values_list("player_id", flat=True)
            )
        )
    tasks.recompute_stats.delay_on_commit(
        club_id=hand.club_id,
        player_ids=players,
        season_ids=[hand.season_id],
        outcome_id=new.pk if new is not None else None,
    )


ADAPTER = SingaporeAdapter()
