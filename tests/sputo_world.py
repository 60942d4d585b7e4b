"""Helpers for the Sputo tournament tests: a club with members who play, a tournament."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from clubs import services as club_services
from clubs.models import Role
from matches.models import TournamentMatch
from matches.sputo import services
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
