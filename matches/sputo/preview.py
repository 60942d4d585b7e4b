"""A correction's preview in words, for the match page: the plan of
``matches.sputo.bracket_changes`` (the very data the correction then applies), round by round down
to the final and the third-place match, with the tournament's winner, status, standings
and ratings; and the admin's award choices for the matches it resets or re-seats."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.sputo import bracket
from matches.sputo.models import TournamentStatus


def _outcome(state: dict, name) -> str:
    """A match's state in words: its players and where it stands."""
    players = f"{name(state['a'])} – {name(state['b'])}"
    result, winner = state["result"], state["winner"]
    if not result:
        where = _("to be played") if state["a"] and state["b"] else _("waiting for its players")
    elif winner is None:
        where = _("nobody goes through")
    elif result == bracket.AWARDED:
        where = _("awarded to %(name)s") % {"name": name(winner)}
    elif result == bracket.NO_OPPONENT:
        where = _("%(name)s goes through, with no opponent") % {"name": name(winner)}
    else:
        where = _("%(name)s won") % {"name": name(winner)}
    return f"{players}: {where}"


def _choices(entry: dict, name) -> list[tuple[str, str, bool]] | None:
    """The award choices of a match the correction resets or re-seats and leaves with both
    players known: play it (again), or award it to either."""
    after = entry["after"]
    if not (after["a"] and after["b"]) or after["result"] not in ("", bracket.AWARDED):
        return None
    awarded = after["winner"] if after["result"] == bracket.AWARDED else None
    choices = [("", _("Play it"), awarded is None)]
    for player in (after["a"], after["b"]):
        label = _("Award it to %(name)s") % {"name": name(player)}
        choices.append((str(player), label, awarded == player))
    return choices


def _entry(entry: dict, preview: dict, name) -> dict:
    pk = entry["match"]
    notes = []
    if pk in preview["set_aside"]:
        notes.append(_("Its result is set aside (kept in the history) and its ratings undone."))
    if pk in preview["reports_set_aside"]:
        notes.append(_("The report waiting here is set aside."))
    return {
        "match": pk,
        "where": _("Match %(n)s") % {"n": entry["position"] + 1},
        "before": _outcome(entry["before"], name),
        "after": _outcome(entry["after"], name),
        "notes": notes,
        "field": f"award-{pk}",
        "choices": _choices(entry, name),
    }


def readable(preview: dict) -> dict:
    """What the page shows of a correction's preview (``results.Plan.as_dict``)."""
    names = {int(k): v for k, v in preview.get("names", {}).items()}

    def name(pid) -> str:
        if pid in (None, "", bracket.NOBODY):
            return "…"
        return names.get(pid, str(pid))

    entries = {e["match"]: e for e in preview["matches"]}
    rounds = [
        {
            "label": r["label"],
            "entries": [_entry(entries[pk], preview, name) for pk in r["matches"]],
        }
        for r in preview["rounds"]
    ]
    before, after = preview["result"]["before"], preview["result"]["after"]
    return {
        "winner_before": name(before["winner"]),
        "winner_after": name(after["winner"]),
        "rounds": rounds,
        "lines": _summary(preview, name),
        "awards": any(e["choices"] for r in rounds for e in r["entries"]),
    }


def _summary(preview: dict, name) -> list[str]:
    """The tournament as a whole: its winner, its status, its standings, the ratings."""
    lines = []
    champion = preview["champion"]
    if champion["before"] != champion["after"]:
        undecided = _("not decided yet")
        lines.append(
            _("Tournament winner: %(before)s → %(after)s")
            % {
                "before": name(champion["before"]) if champion["before"] else undecided,
                "after": name(champion["after"]) if champion["after"] else undecided,
            }
        )
    if preview.get("status"):
        lines.append(
            _("The tournament goes from %(before)s to %(after)s.")
            % {
                "before": TournamentStatus(preview["status"]["before"]).label,
                "after": TournamentStatus(preview["status"]["after"]).label,
            }
        )
    standings = preview["standings"]
    if standings["after"] != standings["before"]:
        if standings["after"]:
            places = ", ".join(
                f"{place}. {name(player)}" for place, player, _r in standings["after"]
            )
            lines.append(_("Standings: %(places)s") % {"places": places})
        else:
            lines.append(_("The standings wait for the final to be played again."))
    undone = len(preview["ratings_undone"])
    if undone:
        lines.append(
            ngettext(
                "The rating changes of %(n)s match set aside are undone; the ratings are "
                "recomputed from this match on.",
                "The rating changes of %(n)s matches set aside are undone; the ratings are "
                "recomputed from this match on.",
                undone,
            )
            % {"n": undone}
        )
    else:
        lines.append(_("Ratings are recomputed from this match on."))
    return lines
