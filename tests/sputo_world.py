"""Helpers for the Sputo tournament tests: a club with members who play, a tournament."""

from __future__ import annotations

import copy
from collections import Counter
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from clubs import services as club_services
from clubs.models import Role
from matches.models import Outcome, TournamentMatch
from matches.results import steps
from matches.sputo import bracket, services
from matches.sputo.bracket import MAIN
from tests.conftest import PASSWORD


def make_members(club, n, *, prefix="p"):
    """``n`` members of ``club`` (users ``<prefix>01``...), their players in order."""
    User = get_user_model()
    players = []
    for i in range(1, n + 1):
        user = User.objects.create_user(
            username=f"{prefix}{i:02d}", password=PASSWORD, email=f"{prefix}{i:02d}@example.org"
        )
        club_services.add_member(club=club, user=user, role=Role.MEMBER)
        players.append(club.players.get(user=user))
    return players


def make_guests(club, n, *, prefix="Ospite"):
    return [club_services.add_guest(club=club, display_name=f"{prefix} {i}") for i in range(n)]


def new_tournament(club, admin, *, name="Torneo di prova", **values):
    values.setdefault("variant", "single_deck")
    values.setdefault("seeding", "manual")
    return services.create_tournament(
        club=club,
        by=admin,
        name=name,
        starts_at=values.pop("starts_at", timezone.now() + timedelta(hours=1)),
        **values,
    )


def drawn(club, admin, players, **values):
    """A tournament of ``players`` (seeded in that order), drawn and running."""
    tournament = new_tournament(club, admin, **values)
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    for n, player in enumerate(players, 1):
        entrant = services.add_entrant(tournament=tournament, player=player, by=admin)
        services.set_manual_seed(entrant=entrant, seed=n, by=admin)
    return services.draw_tournament(tournament=tournament, by=admin)


def match_at(tournament, round_, position, kind="main"):
    return TournamentMatch.objects.select_related("player_a", "player_b", "tournament").get(
        tournament=tournament, round=round_, position=position, kind=kind
    )


def win(match, winner, cards_left=3):
    """A clean win for ``winner``: as many games as the match's format needs."""
    need = match.best_of // 2 + 1
    return {"games": [{"winner": winner.pk, "cards_left": cards_left}] * need}


# --- What a consistent bracket is (written apart from the planner it checks) ---------------


def seats_that_should_be(matches: dict, match) -> list:
    """Who the results say sits in ``match`` (round one: the draw's)."""
    if match.kind == MAIN and match.round == 1:
        return [match.player_a_id, match.player_b_id]
    if match.kind == MAIN:
        feeders = [matches[(MAIN, match.round - 1, 2 * match.position + i)] for i in (0, 1)]
        return [f.winner_id if f.result else None for f in feeders]
    semis = [matches[(MAIN, match.round - 1, i)] for i in (0, 1)]
    losers = []
    for semi in semis:
        if not semi.result or semi.winner_id is None:
            losers.append(None)
        else:
            losers.append(
                semi.player_b_id if semi.winner_id == semi.player_a_id else semi.player_a_id
            )
    return losers


def inconsistencies(tournament) -> list[str]:
    matches = {(m.kind, m.round, m.position): m for m in tournament.matches.all()}
    found = []
    for key, m in sorted(matches.items(), key=lambda kv: (kv[0][1], kv[0][0] != MAIN)):
        if [m.player_a_id, m.player_b_id] != seats_that_should_be(matches, m):
            found.append(f"{key}: seats {m.player_a_id}, {m.player_b_id}")
        if m.winner_id is not None and m.winner_id not in (m.player_a_id, m.player_b_id):
            found.append(f"{key}: the winner does not play")
        if m.needs_resolution:
            found.append(f"{key}: flagged")
    losers = {}
    for (kind, round_, _p), m in matches.items():
        if kind == MAIN and m.result and m.winner_id is not None:
            loser = m.player_b_id if m.winner_id == m.player_a_id else m.player_a_id
            if loser:
                losers[loser] = round_
    for (kind, round_, _p), m in matches.items():
        for player in (m.player_a_id, m.player_b_id):
            if kind == MAIN and player in losers and losers[player] < round_:
                found.append(f"{player} lost in round {losers[player]} and plays round {round_}")
    return found


# --- Preview equals apply: the whole state before, after, and as the preview says ---------


def state(tournament) -> dict:
    tournament.refresh_from_db()
    matches = list(tournament.matches.all())
    ct = ContentType.objects.get_for_model(TournamentMatch)
    outcomes = Counter(
        (o.object_id, o.status, o.payload.get("result"), o.payload.get("winner"))
        for o in Outcome.objects.filter(content_type=ct, object_id__in=[m.pk for m in matches])
    )
    slots = [m.as_slot() for m in matches]
    return {
        "matches": {
            m.pk: {
                "a": m.player_a_id,
                "b": m.player_b_id,
                "winner": m.winner_id,
                "result": m.result,
                "needs_resolution": m.needs_resolution,
            }
            for m in matches
        },
        "outcomes": outcomes,
        "status": tournament.status,
        "standings": [list(s) for s in bracket.standings(slots, rounds=tournament.rounds)],
    }


def as_previewed(before: dict, preview: dict) -> dict:
    """The state ``before`` with exactly what ``preview`` says a correction changes."""
    after = copy.deepcopy(before)
    for entry in preview["matches"]:
        after["matches"][entry["match"]] = {**entry["after"], "needs_resolution": False}
    awarded = {a["match"]: a["winner"] for a in preview["awarded"]}
    outcomes = Counter()
    for (match, status, result, winner), n in before["outcomes"].items():
        if match == preview["match"] and status == "confirmed":
            status = "superseded"  # the correction itself
        elif match in preview["set_aside"] and status == "confirmed":
            status = "superseded" if match in awarded else "voided"
        elif match in preview["reports_set_aside"] and status in ("reported", "disputed"):
            status = "rejected"
        outcomes[(match, status, result, winner)] += n
    new = preview["result"]["after"]
    outcomes[(preview["match"], "confirmed", new["result"], new["winner"])] += 1
    for match, winner in awarded.items():
        outcomes[(match, "confirmed", "awarded", winner)] += 1
    after["outcomes"] = outcomes
    if preview["status"]:
        after["status"] = preview["status"]["after"]
    after["standings"] = preview["standings"]["after"]
    return after


def correct_and_compare(match, admin, payload, reason="Errore al tavolo"):
    """Preview, then apply: the state after is exactly the previewed one."""
    tournament = match.tournament
    before = state(tournament)
    preview = steps.preview_correct_outcome(subject=match, by=admin, payload=payload)
    assert state(tournament) == before  # the preview wrote nothing
    steps.correct_outcome(subject=match, by=admin, payload=payload, reason=reason)
    after = state(tournament)
    assert after == as_previewed(before, preview)
    assert inconsistencies(tournament) == []
    return preview
