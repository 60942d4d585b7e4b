"""Shared pieces of the Singapore tables' tests: a club with a table of people, and hands."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from clubs import services as clubs
from clubs.models import Role
from matches.singapore import services, turns

# The text's worked example: three combinations (x1) against 70 points of cards.
CLOSING = "AS 2S 3S QH QD QC 7D 8D 9D 10D".split()
SEVENTY = "KH KD KC 9C 8C 7C 6H 5H 2H 3C".split()
# A ten-card sequence (x5) and a loser's hand of 100+ points (capped at 100).
QUINTUPLE = "3H 4H 5H 6H 7H 8H 9H 10H JH QH".split()
HEAVY = "KS KD KC AS AD AC JK JK QS QC".split()
NOT_CLOSING = "AS 5S 9S QH 2D QC 7D 8D 4C 10D".split()


def make_table(make_user, names=("Anna", "Bruno", "Carla", "Dario"), *, guests=()):
    """A club (admin ada, scorer sam) where each of ``names`` is a member with a login
    (username the name in lower case), plus ``guests``; returns a dict of everything."""
    ada = make_user("ada")
    club = clubs.create_club(name="Circolo Singapore", founder=ada, city="Napoli")
    sam = make_user("sam")
    clubs.add_member(club=club, user=sam, role=Role.SCORER)
    world = {"club": club, "admin": ada, "scorer": sam, "users": {}, "players": {}}
    for name in names:
        user = make_user(name.lower())
        clubs.add_member(club=club, user=user, role=Role.MEMBER)
        player = club.players.get(user=user)
        clubs.rename_player(player=player, display_name=name)
        player.refresh_from_db()
        world["users"][name] = user
        world["players"][name] = player
    for name in guests:
        world["players"][name] = clubs.add_guest(club=club, display_name=name)
    return world


def nights_ago(weeks: int):
    """A night ``weeks`` weeks ago: nobody sits at two open tables of one night, so a test
    that seats the same people at several open tables puts them on different nights."""
    return timezone.localdate() - timedelta(days=7 * weeks)


def open_table(world, names, *, first=None, point_value=None, seed=None, by=None, date=None):
    players = [world["players"][n] for n in names]
    dealer, opponent = (world["players"][n] for n in first) if first else (None, None)
    return services.open_session(
        club=world["club"],
        by=by or world["scorer"],
        name="Tavolo 1",
        seats=players,
        point_value=point_value,
        first_dealer=dealer,
        first_opponent=opponent,
        seed=seed,
        date=date,
    )


def payload(
    world,
    *,
    winner="dealer",
    winner_cards=CLOSING,
    loser_cards=SEVENTY,
    quotas=1,
    covers=None,
    side_bets=(),
    melds=None,
):
    """A hand's payload with people by name: ``covers`` {name: quotas}, ``side_bets``
    [(backer of the winner, backer of the loser, quotas)]."""
    p = world["players"]
    body = {
        "winner": winner,
        "winner_cards": list(winner_cards),
        "loser_cards": list(loser_cards),
        "dealer_quotas": quotas,
        "covers": {str(p[name].pk): q for name, q in (covers or {}).items()},
        "side_bets": [
            {"backer_of_winner": p[a].pk, "backer_of_loser": p[b].pk, "quotas": q}
            for a, b, q in side_bets
        ],
    }
    if melds is not None:
        body["melds"] = melds
    return body


def play(world, session, dealer, opponent, *, winner="dealer", by=None, **kwargs):
    """Record a hand between two people (by name) won by ``winner`` (a role or a name)."""
    p = world["players"]
    if winner not in ("dealer", "opponent"):
        winner = "dealer" if winner == dealer else "opponent"
    override = kwargs.pop("override", None)
    cover = kwargs.pop("covers", None) or {opponent: 1}
    return services.record_hand(
        session=session,
        by=by or world["scorer"],
        dealer=p[dealer],
        opponent=p[opponent],
        payload=payload(world, winner=winner, covers=cover, **kwargs),
        override=override,
    )


def next_names(world, session):
    """The next (dealer, opponent) by name, or None."""
    state = turns.table_state(session)
    if state.next is None:
        return None
    by_id = {p.pk: name for name, p in world["players"].items()}
    return by_id[state.next[0]], by_id[state.next[1]]
