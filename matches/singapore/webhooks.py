"""Singapore's event for the clubs' webhooks (``clubs.webhooks``): a hand recorded
(``hand.recorded``), announced in the transaction that records it."""

from __future__ import annotations

from django.urls import reverse

from clubs.webhooks.services import emit
from matches.results.models import Outcome
from matches.results.webhooks import absolute, player_data
from matches.singapore.models import Hand


def hand_path(hand: Hand) -> str:
    return reverse("singapore:hand", args=[hand.club.slug, hand.session_id, hand.pk])


def announce_hand(hand: Hand, outcome: Outcome) -> None:
    emit(
        club_id=hand.club_id,
        event="hand.recorded",
        data={
            "table": hand.session_id,
            "hand": {
                "id": hand.pk,
                "url": absolute(hand_path(hand)),
                "number": hand.number,
                "played_at": hand.played_at,
                "out_of_turn": hand.out_of_turn,
            },
            "dealer": player_data(hand.dealer),
            "opponent": player_data(hand.opponent),
            "result": {"id": outcome.pk, "status": outcome.status, "payload": outcome.payload},
        },
    )
