"""The standings of a tournament's stage of standings (a round robin, its groups, a Swiss),
read from its matches: who stands where, and each row's reason in words.

The order is ``formats.standings.table``'s. The games of each match (for the games for and
against, and the cards) are the result in force's; a walkover or an award has none. The
lot that orders players level on everything else is drawn from the tournament's recorded
seed (``lots``): the same every time, and written in the draw's audit.

A match won is worth one point: Sputo has no house rules in RULES.md (the rules checker
refuses any), so the club's "points for a win" is not a house rule to read; one point is
what a win counts everywhere else in Circolo.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.contrib.contenttypes.models import ContentType
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.results.models import Outcome, OutcomeStatus
from matches.sputo import bracket, formats
from matches.sputo.formats import standings
from matches.sputo.models import Format, Tournament, TournamentMatch

POINTS_PER_WIN = 1

STAGE_OF_FORMAT = {
    Format.ROUND_ROBIN: "round_robin",
    Format.GROUPS_THEN_KNOCKOUT: "groups",
    Format.SWISS: "swiss",
}
KIND_OF_FORMAT = {
    Format.ROUND_ROBIN: formats.ROUND_ROBIN,
    Format.GROUPS_THEN_KNOCKOUT: formats.GROUP,
    Format.SWISS: formats.SWISS,
}


@dataclass
class Group:
    name: str  # "" for a round robin's or a Swiss's one table
    rows: list[standings.Row]


def lots(tournament: Tournament, players) -> dict[int, int]:
    """Each player's drawn lot (lower first), from the tournament's recorded seed."""
    order = sorted(players)
    random.Random(f"lots-{tournament.seed}").shuffle(order)
    return {player: n for n, player in enumerate(order)}


def stage_matches(tournament: Tournament) -> list[TournamentMatch]:
    kind = KIND_OF_FORMAT.get(tournament.format)
    if kind is None:
        return []
    return list(tournament.matches.filter(kind=kind).order_by("round", "position"))


def _games(matches: list[TournamentMatch]) -> dict[int, tuple[tuple[int, int], ...]]:
    """Each decided match's games in force, ``(winner, cards left to the loser)``."""
    decided = [m.pk for m in matches if m.result]
    if not decided:
        return {}
    rows = Outcome.objects.filter(
        content_type=ContentType.objects.get_for_model(TournamentMatch),
        object_id__in=decided,
        status=OutcomeStatus.CONFIRMED,
    ).values_list("object_id", "payload")
    return {
        pk: tuple(
            (game["winner"], int(game.get("cards_left") or 0))
            for game in (payload or {}).get("games", [])
        )
        for pk, payload in rows
    }


def results(matches: list[TournamentMatch]) -> list[standings.Result]:
    """The decided matches as the standings count them (a bye a win without a match)."""
    games = _games(matches)
    found = []
    for m in matches:
        if not m.result or m.player_a_id is None:
            continue
        if m.result == bracket.BYE:
            found.append(standings.Result(m.player_a_id, None, m.player_a_id))
            continue
        if m.player_b_id is None:
            continue
        found.append(
            standings.Result(m.player_a_id, m.player_b_id, m.winner_id, games.get(m.pk, ()))
        )
    return found


def seeded_players(tournament: Tournament) -> list[int]:
    """The players of the draw, in seed order."""
    return list(
        tournament.entrants.filter(seed__isnull=False, no_show=False)
        .order_by("seed")
        .values_list("player_id", flat=True)
    )


def groups_of(tournament: Tournament, matches: list[TournamentMatch] | None = None) -> list[Group]:
    """The tables of the stage: one per group (groups), or one (round robin, Swiss)."""
    if matches is None:
        matches = stage_matches(tournament)
    players = seeded_players(tournament)
    members: dict[str, list[int]] = {}
    if tournament.format == Format.GROUPS_THEN_KNOCKOUT:
        seen: dict[int, str] = {}
        for m in matches:
            for pk in (m.player_a_id, m.player_b_id):
                if pk is not None:
                    seen.setdefault(pk, m.group)
        for pk in players:
            if pk in seen:
                members.setdefault(seen[pk], []).append(pk)
        members = dict(sorted(members.items(), key=lambda item: (len(item[0]), item[0])))
    else:
        members[""] = players
    drawn = lots(tournament, players)
    swiss = tournament.format == Format.SWISS
    found = results(matches)
    tables = []
    for name, group in members.items():
        inside = set(group)
        mine = [r for r in found if r.a in inside and (r.b is None or r.b in inside)]
        rows = standings.table(group, mine, points_per_win=POINTS_PER_WIN, swiss=swiss, lots=drawn)
        tables.append(Group(name, rows))
    return tables


def row_data(row: standings.Row, names: dict[int, str], *, swiss: bool) -> dict:
    """A row as the API's standings and the pages read it, its reason in words."""
    return {
        "player": row.player,
        "name": names.get(row.player, ""),
        "played": row.played,
        "won": row.won,
        "lost": row.lost,
        "points": row.points,
        "games_for": row.games_for,
        "games_against": row.games_against,
        "cards": row.cards,
        "buchholz": row.buchholz if swiss else None,
        "median_buchholz": row.median_buchholz if swiss else None,
        "rank": row.rank,
        "why": why(row, names),
    }


def why(row: standings.Row, names: dict[int, str]) -> str:
    """A row's reason to stand above the next, in words."""
    above = row.above
    if above is None:
        return ""
    other = names.get(above.other, "?")
    sentences = {
        "points": _("above %(name)s: more points"),
        "games": _("above %(name)s: a better games' difference"),
        "games_for": _("above %(name)s: more games won"),
        "cards": _("above %(name)s: more cards left to the opponents"),
        "buchholz": _("above %(name)s: a higher Buchholz (their opponents' points)"),
        "median_buchholz": _("above %(name)s: a higher median Buchholz"),
        "lot": _("above %(name)s: level on everything, by the drawn lot"),
    }
    if above.reason == "head_to_head":
        if above.won_their_match:
            return _("above %(name)s: won their match") % {"name": other}
        return _("above %(name)s: better in the matches between those level") % {"name": other}
    return sentences[above.reason] % {"name": other}


def _wins(n: int) -> str:
    return ngettext("%(n)s win", "%(n)s wins", n) % {"n": n}


def _met(name: str, met, names: dict[int, str]) -> str:
    if not met:
        return _("%(name)s has met nobody yet") % {"name": name}
    others = get_text_list([names.get(pk, "?") for pk in met], _("and"))
    return _("%(name)s has met %(others)s") % {"name": name, "others": others}


def pairing_words(why: dict, names: dict[int, str]) -> str:
    """A Swiss pairing's reasons (``swiss.Why`` as stored on the match), in words: "Anna
    meets Bruno: both on 2 wins; Anna has met Carla and Dario; Bruno has met Elena"."""
    a = names.get(why["a"], "?")
    if why.get("b") is None:
        if why.get("byes_before"):
            return _(
                "%(name)s has the bye: everyone has had one, and %(name)s is the lowest "
                "on %(wins)s."
            ) % {"name": a, "wins": _wins(why["score_a"])}
        return _("%(name)s has the bye: the lowest on %(wins)s who has not had one.") % {
            "name": a,
            "wins": _wins(why["score_a"]),
        }
    b = names.get(why["b"], "?")
    if why["score_a"] == why["score_b"]:
        score = _("both on %(wins)s") % {"wins": _wins(why["score_a"])}
    else:
        score = _("%(a)s on %(wins_a)s, %(b)s on %(wins_b)s") % {
            "a": a,
            "b": b,
            "wins_a": _wins(why["score_a"]),
            "wins_b": _wins(why["score_b"]),
        }
    parts = [
        _("%(a)s meets %(b)s: %(score)s") % {"a": a, "b": b, "score": score},
        _met(a, why.get("met_a", ()), names),
        _met(b, why.get("met_b", ()), names),
    ]
    if why.get("rematch"):
        parts.append(_("a rematch: no pairing without one was left"))
    return "; ".join(parts)
