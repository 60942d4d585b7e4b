"""The demo's Singapore tables: two finished sessions and one running, hands dealt by the
rules engine's bots and recorded through the same services as real ones (the rotation,
the result cycle, the ledger), with a void, a correction, a hand waiting for the other
player's confirmation, and a payment of the money table's settle-up plan, confirmed.

``build(demo)`` is a part of ``manage.py demo`` (see the demo's protocol); the work is in
:func:`build_tables`, which takes the club, its scorer and the moment it is built.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.utils import timezone

from clubs.demo import DEMO_SLUG, SCORER
from clubs.models import Club, Role
from ledger import reads as ledger_reads
from ledger import services as ledger
from matches.results import steps
from matches.singapore import services, turns
from matches.singapore.models import TableSession
from rules.bots import singapore as bot

TABLES = [
    # (name, days ago, players, hands, point value, still open)
    ("Tavolo del camino", 9, 6, 24, "0.10", False),
    ("Tavolo verde", 3, 5, 20, None, False),
    ("Tavolo del camino", 0, 4, 7, "0.10", True),
]


def _hand(rng: random.Random, session, dealer, opponent, people) -> dict:
    """A bot-dealt hand with a stake: the dealer's quotas, covered by the opponent first,
    then by bystanders; now and then a side bet between two bystanders."""
    record = bot.random_record(rng.randrange(10**9))
    quotas = rng.randint(2, 6)
    covers = {str(opponent.pk): rng.randint(1, quotas)}
    left = quotas - covers[str(opponent.pk)]
    bystanders = [p for p in people if p.pk not in (dealer.pk, opponent.pk)]
    rng.shuffle(bystanders)
    for person in bystanders[:2]:
        if left <= 0:
            break
        covers[str(person.pk)] = rng.randint(1, left)
        left -= covers[str(person.pk)]
    bets = []
    if len(bystanders) >= 2 and rng.random() < 0.25:
        backer, against = bystanders[:2]
        bets.append({"backer_of_winner": backer.pk, "backer_of_loser": against.pk, "quotas": 1})
    return {
        "winner": rng.choice(["dealer", "opponent"]),
        "winner_cards": record["winner"],
        "loser_cards": record["loser"],
        "dealer_quotas": quotas,
        "covers": covers,
        "side_bets": bets,
    }


def _play(rng, session: TableSession, n_hands: int, *, by, start: datetime) -> list:
    recorded = []
    for n in range(n_hands):
        state = turns.table_state(session)
        seats = {s.player_id: s.player for s in state.seats}
        dealer, opponent = seats[state.next[0]], seats[state.next[1]]
        present = [s.player for s in state.seats if s.left_at is None]
        recorded.append(
            services.record_hand(
                session=session,
                by=by,
                dealer=dealer,
                opponent=opponent,
                payload=_hand(rng, session, dealer, opponent, present),
                played_at=start + timedelta(minutes=5 * n),
            )
        )
    return recorded


def _settle_one(session: TableSession, scorer) -> None:
    """The first payment of the table's settle-up plan: the debtor paid, the payee (or an
    admin) confirmed it."""
    plan = ledger_reads.settle_up_plan(
        club=session.club, unit=session.unit, scope=ledger.scope_of_session(session.pk)
    )
    if not plan:
        return
    debt = plan[0]
    payment = ledger.record_payment(
        club=session.club,
        payer=debt.debtor,
        payee=debt.creditor,
        amount=debt.amount,
        unit=session.unit,
        by=scorer,
    )
    confirmer = debt.creditor.user
    if confirmer is None:
        admin = session.club.memberships.filter(role=Role.ADMIN).select_related("user").first()
        confirmer = admin.user if admin else None
    if confirmer is not None:
        ledger.confirm_payment(payment=payment, by=confirmer)


def build_tables(*, club: Club, scorer, now: datetime, rng: random.Random) -> list[TableSession]:
    members = list(club.players.active().filter(user__isnull=False).order_by("pk"))
    guests = list(club.players.active().filter(user__isnull=True).order_by("pk"))
    sessions = []
    for name, days_ago, size, n_hands, value, still_open in TABLES:
        day = timezone.localtime(now).date() - timedelta(days=days_ago)
        people = rng.sample(members, size - 1) + rng.sample(guests, 1)
        rng.shuffle(people)
        session = services.open_session(
            club=club,
            by=scorer,
            name=name,
            seats=people,
            point_value=value,
            date=day,
            seed=rng.randrange(2**62),
        )
        start = timezone.make_aware(datetime.combine(day, datetime.min.time())) + timedelta(
            hours=21
        )
        if still_open:
            start = min(start, now - timedelta(minutes=5 * (n_hands + 1)))
        hands = _play(rng, session, n_hands, by=scorer, start=start)
        if not still_open:
            # A hand voided (a misdeal), one corrected (the covers were wrong).
            steps.void_outcome(subject=hands[4].hand, by=scorer, reason="Carte date male")
            fixed = dict(hands[7].outcome.payload)
            fixed["dealer_quotas"] += 1
            steps.correct_outcome(
                subject=hands[7].hand, by=scorer, payload=fixed, reason="Una quota in più"
            )
            if n_hands > 10:
                services.sit_out(session=session, player=people[-1], by=scorer)
            session = services.close_table(session=session, by=scorer)
            if value is not None:
                _settle_one(session, scorer)
        else:
            # The last hand reported by one of its players, waiting for the other.
            state = turns.table_state(session)
            seats = {s.player_id: s.player for s in state.seats}
            dealer, opponent = seats[state.next[0]], seats[state.next[1]]
            reporter = next((p for p in (dealer, opponent) if p.user_id), None)
            if reporter is not None:
                present = [s.player for s in state.seats if s.left_at is None]
                services.record_hand(
                    session=session,
                    by=reporter.user,
                    dealer=dealer,
                    opponent=opponent,
                    payload=_hand(rng, session, dealer, opponent, present),
                )
        sessions.append(session)
    return sessions


def build(demo) -> None:
    """The demo's part (``manage.py demo``): tables at the demo club."""

    build_tables(
        club=demo.clubs[DEMO_SLUG],
        scorer=demo.users[SCORER],
        now=demo.now,
        rng=demo.rng("singapore-tables"),
    )
