"""Hands at a table post to the ledger: one transaction a result in force, a reversal for a
void, a reversal and a new posting for a correction; imports post in batches; and a
hypothesis state machine of hands, voids, corrections, payments and duplicate posts after
which every transaction sums to zero and every balance is the sum of its entries and the
sheet's total."""

import json
from collections import defaultdict
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.models import Count, F, Q, Sum
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from rest_framework.test import APIClient

from ledger import check
from ledger import reads as ledger_reads
from ledger import services as ledger
from ledger.models import Entry, Leg, Transaction
from matches.results import steps
from matches.results.adapters import adapter_for
from matches.singapore import posting, services, turns
from matches.singapore.importer import import_hands
from matches.singapore.sheet import build_sheet
from rules.bots import singapore as bot
from rules.check import check_record
from tests.ledger_helpers import triggers_off
from tests.singapore_helpers import HEAVY, QUINTUPLE, make_table, open_table, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario"))


def balances(world, session, unit="points"):
    names = {p.pk: n for n, p in world["players"].items()}
    found = ledger_reads.balances(
        club=world["club"], unit=unit, scope=ledger.scope_of_session(session.pk)
    )
    return {names[b.player.pk]: b.amount for b in found if b.amount}


def test_the_texts_worked_example_in_the_ledger(world):
    session = open_table(world, "Anna Bruno Carla Dario".split(), first=("Anna", "Bruno"))
    recorded = play(
        world, session, "Anna", "Bruno", quotas=5, covers={"Bruno": 2, "Carla": 1, "Dario": 2}
    )
    assert balances(world, session) == {"Anna": 350, "Bruno": -140, "Carla": -70, "Dario": -140}
    tx = Transaction.objects.get()
    assert (tx.key, tx.source, tx.scope, tx.unit) == (
        f"hand:{recorded.hand.pk}:v1",
        f"hand:{recorded.hand.pk}",
        f"session:{session.pk}",
        "points",
    )


def test_the_worked_example_with_a_side_bet_owes_exactly_the_three_real_debts(make_user):
    world = make_table(make_user, ("Anna", "Bruno", "Carla", "Dario", "Elena"))
    p = world["players"]
    session = open_table(world, list(p), first=("Anna", "Bruno"))
    # Anna deals 5 quotas, Bruno covers 2 and Carla 1; Dario backs the winner against Elena.
    hand = play(
        world,
        session,
        "Anna",
        "Bruno",
        quotas=5,
        covers={"Bruno": 2, "Carla": 1},
        side_bets=[("Dario", "Elena", 2)],
    ).hand
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(world["users"]["Carla"])
    query = f"club={world['club'].slug}&unit=points&session={session.pk}"
    debts = client.get(f"/api/v1/ledger/debts/?{query}").json()["debts"]
    shown = {(d["from"], d["to"], d["amount"], d["paid"]) for d in debts}
    assert shown == {
        (p["Bruno"].pk, p["Anna"].pk, 140, 0),
        (p["Carla"].pk, p["Anna"].pk, 70, 0),
        (p["Elena"].pk, p["Dario"].pk, 140, 0),
    }
    for debt in debts:
        (part,) = debt["hands"]
        assert (part["source"], part["amount"]) == (f"hand:{hand.pk}", debt["amount"])
        assert part["description"] == "Tavolo 1, hand 1" and part["url"].endswith(f"/{hand.pk}/")
    # Whoever owes whom, the balances are what they were.
    assert balances(world, session) == {
        "Anna": 210,
        "Dario": 140,
        "Bruno": -140,
        "Carla": -70,
        "Elena": -140,
    }


def test_older_hands_get_their_legs_from_their_records(world):
    session = open_table(world, "Anna Bruno Carla Dario".split(), first=("Anna", "Bruno"))
    first = play(
        world, session, "Anna", "Bruno", quotas=3, covers={"Bruno": 1, "Carla": 1, "Dario": 1}
    )
    play(world, session, "Anna", "Carla", winner="Carla", quotas=2, covers={"Carla": 1, "Bruno": 1})
    body = dict(first.outcome.payload, side_bets=[])
    steps.correct_outcome(subject=first.hand, by=world["scorer"], payload=body, reason="Dario")
    legs = set(Leg.objects.values_list("transaction__key", "debtor", "creditor", "amount_minor"))
    with triggers_off():  # the ledger as it was before legs: entries alone
        Leg.objects.all().delete()
        Transaction.objects.update(n_legs=None)
    out = StringIO()
    call_command("ledger_legs", stdout=out)
    assert (
        "4 of 4 transactions without legs were given theirs: 3 from the records" in out.getvalue()
    )
    assert (
        set(Leg.objects.values_list("transaction__key", "debtor", "creditor", "amount_minor"))
        == legs
    )
    assert check.run().ok


def test_a_void_posts_a_reversal_and_a_correction_a_reversal_and_the_new_posting(world):
    session = open_table(world, "Anna Bruno Carla".split(), first=("Anna", "Bruno"))
    first = play(world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 2})
    second = play(world, session, "Anna", "Carla", covers={"Carla": 1})
    body = dict(first.outcome.payload, winner="opponent")
    steps.correct_outcome(subject=first.hand, by=world["scorer"], payload=body, reason="Bruno")
    steps.void_outcome(subject=second.hand, by=world["scorer"], reason="Mazzo sbagliato")
    keys = list(Transaction.objects.order_by("pk").values_list("key", "kind"))
    h1, h2 = first.hand.pk, second.hand.pk
    assert keys == [
        (f"hand:{h1}:v1", "posting"),
        (f"hand:{h2}:v1", "posting"),
        (f"hand:{h1}:v1:reversal", "reversal"),
        (f"hand:{h1}:v2", "posting"),
        (f"hand:{h2}:v1:reversal", "reversal"),
    ]
    assert balances(world, session) == {"Anna": -140, "Bruno": 140}
    sheet = build_sheet(session)
    assert {t.player.display_name: t.points for t in sheet.totals if t.points} == {
        "Anna": -140,
        "Bruno": 140,
    }
    assert check.run().ok


def test_a_money_table_posts_money_in_the_clubs_currency(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"), point_value="0.05")
    play(
        world,
        session,
        "Anna",
        "Bruno",
        winner="opponent",
        quotas=2,
        covers={"Bruno": 2},
        winner_cards=QUINTUPLE,
        loser_cards=HEAVY,
    )
    assert balances(world, session, "EUR") == {"Anna": Decimal("-50.00"), "Bruno": Decimal("50.00")}
    assert balances(world, session, "points") == {}


def test_posting_a_result_again_posts_it_once(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    recorded = play(world, session, "Anna", "Bruno")
    hand = adapter_for(recorded.hand).load(recorded.hand)
    again = posting.post_hand(hand=hand, outcome=recorded.outcome, by=world["scorer"])
    assert again.key == f"hand:{hand.pk}:v1" and Transaction.objects.count() == 1


def test_a_hand_where_nothing_is_covered_posts_nothing(world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    p = world["players"]
    recorded = services.record_hand(
        session=session,
        by=world["scorer"],
        dealer=p["Anna"],
        opponent=p["Bruno"],
        payload={
            "winner": "dealer",
            "winner_cards": QUINTUPLE,
            "loser_cards": HEAVY,
            "dealer_quotas": 3,
            "covers": {},
            "side_bets": [],
        },
    )
    assert Transaction.objects.count() == 0
    steps.void_outcome(subject=recorded.hand, by=world["scorer"], reason="prova")
    assert Transaction.objects.count() == 0


def test_the_settle_up_plan_of_a_table(world):
    session = open_table(world, "Anna Bruno Carla Dario".split(), first=("Anna", "Bruno"))
    play(world, session, "Anna", "Bruno", quotas=5, covers={"Bruno": 2, "Carla": 1, "Dario": 2})
    plan = ledger_reads.settle_up_plan(
        club=world["club"], unit="points", scope=ledger.scope_of_session(session.pk)
    )
    assert sorted((d.debtor.display_name, d.creditor.display_name, d.amount) for d in plan) == [
        ("Bruno", "Anna", 140),
        ("Carla", "Anna", 70),
        ("Dario", "Anna", 140),
    ]


def test_imported_hands_are_posted_once_in_batches(make_user):
    world = make_table(make_user, names=(), guests=bot.NAMES)
    # A table's evening in turn (each winner stays and deals), as the import checks.
    lines = [json.dumps(record) for record in bot.table_records(0, 30, seats=bot.NAMES)]
    report = import_hands(
        club=world["club"],
        lines=lines,
        point_value=Decimal("0.10"),
        batch=7,
        source="f.jsonl",
        workers=1,
    )
    assert report.imported == 30
    (session_id,) = report.sessions
    session = world["club"].table_sessions.get(pk=session_id)
    sheet = build_sheet(session)
    totals = {t.player.pk: t.amount for t in sheet.totals if t.points}
    shown = {
        b.player.pk: b.amount
        for b in ledger_reads.balances(
            club=world["club"], unit="EUR", scope=f"session:{session_id}"
        )
        if b.amount
    }
    assert shown == totals
    # Who owes whom is each line's transfers, netted pair by pair.
    ids = {p.display_name: p.pk for p in world["club"].players.all()}
    owed = defaultdict(int)
    for line in lines:
        for t in check_record(json.loads(line))[1].get("transfers", []):
            low, high = sorted((ids[t["from"]], ids[t["to"]]))
            owed[(low, high)] += t["points"] if ids[t["from"]] == low else -t["points"]
    debts = ledger_reads.net_debts(club=world["club"], unit="EUR", scope=f"session:{session_id}")
    assert {
        (min(d.debtor.pk, d.creditor.pk), max(d.debtor.pk, d.creditor.pk)): (
            1 if d.debtor.pk < d.creditor.pk else -1
        )
        * d.minor
        for d in debts
    } == {pair: points * 10 for pair, points in owed.items() if points}
    posted = Transaction.objects.count()
    assert posted == sum(
        1
        for line in lines
        if json.loads(line)["stake"]["covers"] or json.loads(line)["stake"]["side_bets"]
    )
    import_hands(club=world["club"], lines=lines, source="f.jsonl", workers=1)
    assert Transaction.objects.count() == posted
    assert check.run().ok


def test_the_batch_posting_refuses_what_a_single_posting_refuses(world):
    p = world["players"]
    club = world["club"]
    good = ledger.Posting(
        club=club, unit="points", entries={p["Anna"]: 5, p["Bruno"]: -5}, key="batch:1"
    )
    assert ledger.post_many([good]) == 1
    assert ledger.post_many([good]) == 0
    for bad in (
        ledger.Posting(club=club, unit="points", entries={p["Anna"]: 5, p["Bruno"]: -4}, key="b:2"),
        ledger.Posting(club=club, unit="points", entries={p["Anna"]: 5}, key="b:3"),
        ledger.Posting(club=club, unit="XYZ", entries={p["Anna"]: 5, p["Bruno"]: -5}, key="b:4"),
        ledger.Posting(
            club=club, unit="points", entries={p["Anna"]: 6, p["Bruno"]: -6}, key="batch:1"
        ),
        ledger.Posting(
            club=club, unit="EUR", entries={p["Anna"]: "0.001", p["Bruno"]: 0}, key="b:5"
        ),
        ledger.Posting(club=club, unit="points", entries={p["Anna"]: 5, 999999: -5}, key="b:6"),
    ):
        with pytest.raises(ledger.ValidationError), transaction.atomic():
            ledger.post_many([bad])
    assert Transaction.objects.count() == 1


def test_tables_and_the_ledger_stay_consistent_whatever_happens(world):
    club, scorer = world["club"], world["scorer"]
    people = [world["players"][n] for n in ("Anna", "Bruno", "Carla", "Dario")]

    class Tables(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.atomic = transaction.atomic()
            self.atomic.__enter__()
            self.session = services.open_session(
                club=club, by=scorer, name="Tavolo", seats=people, seed=3, point_value="0.10"
            )
            self.hands = []  # (hand, outcome in force)
            self.paid: dict[int, int] = defaultdict(int)  # cents, from payments

        def teardown(self):
            try:
                result = check.run()
                assert result.ok, result.problems
            finally:
                transaction.set_rollback(True)
                self.atomic.__exit__(None, None, None)

        def _payload(self, data, dealer, opponent):
            record = bot.random_record(data.draw(st.integers(0, 10**6)))
            others = [p for p in people if p.pk not in (dealer.pk, opponent.pk)]
            quotas = data.draw(st.integers(1, 6))
            covers = {str(opponent.pk): data.draw(st.integers(0, quotas))}
            left = quotas - covers[str(opponent.pk)]
            for person in others:
                take = data.draw(st.integers(0, left))
                if take:
                    covers[str(person.pk)] = take
                    left -= take
            bets = []
            if data.draw(st.booleans()):
                bets.append(
                    {
                        "backer_of_winner": others[0].pk,
                        "backer_of_loser": others[1].pk,
                        "quotas": data.draw(st.integers(1, 3)),
                    }
                )
            return {
                "winner": data.draw(st.sampled_from(["dealer", "opponent"])),
                "winner_cards": record["winner"],
                "loser_cards": record["loser"],
                "dealer_quotas": quotas,
                "covers": {k: v for k, v in covers.items() if v},
                "side_bets": bets,
            }

        @rule(data=st.data())
        def hand(self, data):
            state = turns.table_state(self.session)
            seats = {s.player_id: s.player for s in state.seats}
            dealer, opponent = seats[state.next[0]], seats[state.next[1]]
            recorded = services.record_hand(
                session=self.session,
                by=scorer,
                dealer=dealer,
                opponent=opponent,
                payload=self._payload(data, dealer, opponent),
            )
            self.hands.append((recorded.hand, recorded.outcome))

        @precondition(lambda self: self.hands)
        @rule(data=st.data())
        def post_again(self, data):
            hand, outcome = data.draw(st.sampled_from(self.hands))
            before = Transaction.objects.count()
            posting.post_hand(hand=adapter_for(hand).load(hand), outcome=outcome, by=scorer)
            assert Transaction.objects.count() == before

        @precondition(lambda self: self.hands)
        @rule(data=st.data())
        def void(self, data):
            index = data.draw(st.integers(0, len(self.hands) - 1))
            hand, _ = self.hands.pop(index)
            steps.void_outcome(subject=hand, by=scorer, reason="prova")

        @precondition(lambda self: self.hands)
        @rule(data=st.data())
        def correct(self, data):
            index = data.draw(st.integers(0, len(self.hands) - 1))
            hand, _ = self.hands[index]
            outcome = steps.correct_outcome(
                subject=hand,
                by=scorer,
                payload=self._payload(data, hand.dealer, hand.opponent),
                reason="correzione",
            )
            self.hands[index] = (hand, outcome)

        @rule(pair=st.permutations(range(4)), cents=st.integers(1, 5000))
        def pay(self, pair, cents):
            payer, payee = people[pair[0]], people[pair[1]]
            payment = ledger.record_payment(
                club=club,
                payer=payer,
                payee=payee,
                amount=Decimal(cents) / 100,
                unit="EUR",
                by=scorer,
            )
            ledger.confirm_payment(payment=payment, by=world["admin"])
            self.paid[payer.pk] += cents
            self.paid[payee.pk] -= cents

        @invariant()
        def every_transaction_sums_to_zero(self):
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            unbalanced = Transaction.objects.annotate(
                total=Sum("entries__amount_minor"), n=Count("entries")
            ).filter(~Q(total=0) | ~Q(n=F("n_entries")))
            assert not unbalanced.exists()

        @invariant()
        def every_balance_is_the_sum_of_its_entries_and_the_sheets_total(self):
            scope = ledger.scope_of_session(self.session.pk)
            shown = ledger_reads.balance_minors(club=club, unit="EUR", scope=scope)
            added = defaultdict(int)
            for player_id, minor in Entry.objects.filter(
                transaction__unit="EUR", transaction__scope=scope
            ).values_list("player_id", "amount_minor"):
                added[player_id] += minor
            assert shown == dict(added)
            sheet = build_sheet(self.session)
            assert {k: v for k, v in shown.items() if v} == {
                t.player.pk: int(t.amount * 100) for t in sheet.totals if t.points
            }
            club_wide = ledger_reads.balance_minors(club=club, unit="EUR")
            expected = defaultdict(int)
            for pid, minor in shown.items():
                expected[pid] += minor
            for pid, cents in self.paid.items():
                expected[pid] += cents
            assert {k: v for k, v in club_wide.items() if v} == {
                k: v for k, v in expected.items() if v
            }

    run_state_machine_as_test(
        Tables, settings=settings(max_examples=12, stateful_step_count=10, deadline=None)
    )
