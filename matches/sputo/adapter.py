"""A Sputo tournament match in the result cycle (``matches.results``).

What a result changes in the bracket is planned by ``matches.sputo.bracket.settle`` and
written by ``matches.sputo.bracket_changes.apply_result``: the same plan a correction's preview
shows. Results in force are corrected or voided by admins only: a correction flows through
the later rounds in the same step (players re-seated, later results that depended on it set
aside, or awarded with ``awards``); a double forfeit is a scorer's, an award an admin's.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.inbox.models import Kind
from clubs.inbox.services import Waiting
from clubs.models import Role
from matches.results import steps
from matches.results.adapters import ROLES, GameAdapter, Who
from matches.results.models import OPEN
from matches.sputo import bracket_changes, formats, knockout, stages
from matches.sputo.models import Tournament, TournamentMatch, TournamentStatus
from matches.sputo.payload import check_match_result
from plumbing.errors import Conflict


class SputoAdapter(GameAdapter):
    game = "sputo"
    model = TournamentMatch
    roles = {
        **ROLES,
        "correct": Who(Role.ADMIN),
        "void": Who(Role.ADMIN),
        # Replay or award a match flagged before corrections reset the later matches.
        "resolve": Who(Role.ADMIN),
        "award": Who(Role.ADMIN),
        "double_forfeit": Who(Role.SCORER),
    }
    # A result in force is voided only by a correction upstream (the later matches it
    # resets) or by resolving a match flagged before that (``replay``).
    steps = ("report", "confirm", "dispute", "withdraw", "decide", "correct")
    related = (
        "tournament",
        "club",
        "player_a",
        "player_b",
        "tournament__house_rules",
        "tournament__season",
    )
    audit_sentences = {
        "bracket": gettext_lazy("The bracket followed the result."),
        "moved": gettext_lazy("A correction elsewhere changed the players of this match."),
        "set_aside": gettext_lazy("A correction set aside the report waiting here."),
        "set_aside_result": gettext_lazy(
            "%(who)s corrected an earlier match: this result no longer counts and its "
            "ratings are undone."
        ),
        "award": gettext_lazy("%(who)s awarded this match."),
        "reseat": gettext_lazy("%(who)s put the right players in this match."),
    }

    inbox_kinds = frozenset({Kind.MATCH_READY})

    def waiting(self, subject):
        """Both players of a match that is ready (known, undecided, nothing reported) in a
        running tournament: their match waits for them."""
        match = subject
        if (
            match.tournament.status != TournamentStatus.RUNNING
            or match.result
            or not (match.player_a_id and match.player_b_id)
            or match.outcomes.filter(status__in=OPEN).exists()
        ):
            return []
        url = match.get_absolute_url()
        pairs = [(match.player_a, match.player_b), (match.player_b, match.player_a)]
        return [
            Waiting(
                player.user_id,
                Kind.MATCH_READY,
                url,
                {"what": str(match), "opponent": opponent.display_name, "table": match.table},
                calls_again_on=("table",),  # given a table: called to it
            )
            for player, opponent in pairs
            if player.user_id
        ]

    def inbox_subjects(self, subject):
        """A step on a match changes it and what its result reaches (a winner moved on, a
        correction's later matches reset, the third-place match seated): those matches, not
        the whole bracket, whose every match read again cost five queries (155 a report in
        a 32-player tournament, 2,500 in a 512-player one)."""
        if subject.kind in formats.TABLE_KINDS:  # a stage's match feeds no other
            return [subject]
        keys = knockout.fed_from(subject.tournament, subject.kind, subject.round, subject.position)
        reached = Q()
        for kind, round_, position in keys:
            reached |= Q(kind=kind, round=round_, position=position)
        matches = TournamentMatch.objects.filter(reached, tournament_id=subject.tournament_id)
        return list(matches.select_related(*self.related).order_by("round", "kind", "position"))

    def lock(self, subject):
        # Every step on any match of a tournament takes the tournament's row first: a
        # result moves players into other matches' rows, and a correction re-seats many;
        # one lock taken first, always, leaves no two steps waiting on each other.
        # Two small reads rather than one of seven tables, which PostgreSQL spent about 3 ms
        # planning (ten times its running): the tournament with its house rules and season,
        # then the match with its club and players, given the tournament just locked.
        tournament = (
            Tournament.objects.select_for_update(of=("self",))
            .select_related("house_rules", "season")
            .get(pk=subject.tournament_id)
        )
        match = (
            TournamentMatch.objects.select_for_update(of=("self",))
            .select_related("club", "player_a", "player_b")
            .get(pk=subject.pk)
        )
        match.tournament = tournament
        return match

    def players(self, subject):
        return subject.players()

    def house_rules(self, subject):
        return subject.tournament.house_rules

    def played_at(self, subject):
        return None  # a match's games are played when they are reported

    def season(self, subject):
        return subject.tournament.season

    def ready(self, subject) -> None:
        if subject.tournament.status not in (TournamentStatus.RUNNING, TournamentStatus.FINISHED):
            raise Conflict(_("This tournament is not running."))
        if subject.player_a_id is None or subject.player_b_id is None:
            raise Conflict(_("The players of this match are not known yet."))
        if subject.needs_resolution:
            raise Conflict(_("This match waits for an admin to replay or award it."))

    def check(self, subject, payload, *, actor):
        # A correction's body may award the later matches it resets (``awards``): the
        # admin's decisions for the whole cascade, in the same step; they are the bracket's
        # business, not the result's, and are handed to ``applied`` and the preview.
        awards = None
        if isinstance(payload, dict) and "awards" in payload:
            payload = dict(payload)
            awards = read_awards(payload.pop("awards"))
            if awards:
                steps.require("award", actor, subject)
        checked = check_match_result(
            subject, payload, require=lambda step: steps.require(step, actor, subject)
        )
        checked.extra = {"awards": awards or {}}
        return checked

    def applied(self, subject, outcome, *, previous, by, checked):
        awards = (checked.extra or {}).get("awards") if checked is not None else None
        if subject.kind in formats.TABLE_KINDS:
            if awards:
                raise ValidationError({"awards": [_("A match of a table resets no other.")]})
            stages.apply_result(
                subject, outcome.payload, by=by, previous=previous, at=outcome.confirmed_at
            )
            return
        bracket_changes.apply_result(
            subject,
            outcome.payload,
            by=by,
            previous=previous,
            at=outcome.confirmed_at,
            awards=awards,
            note=outcome.note,
        )

    def voided(self, subject, outcome, *, by):
        if subject.kind in formats.TABLE_KINDS:
            stages.apply_result(subject, None, by=by, previous=outcome)
            return
        bracket_changes.apply_result(subject, None, by=by, previous=outcome, note=outcome.note)

    def preview_correction(self, subject, checked, *, by):
        awards = (checked.extra or {}).get("awards")
        if subject.kind in formats.TABLE_KINDS:
            return stages.preview_result(subject, checked.payload)
        return bracket_changes.preview_result(subject, checked.payload, awards)


def read_awards(value) -> dict[int, int]:
    """``[{"match": id, "winner": player id}, ...]`` as ``{match: winner}``, or a 400
    naming ``awards``."""
    if value is None:
        return {}
    shape = _('Awards are a list of {"match": id, "winner": player id}, one per match.')
    if not isinstance(value, list):
        raise ValidationError({"awards": [shape]})
    awards: dict[int, int] = {}
    for item in value:
        if not isinstance(item, dict) or set(item) != {"match", "winner"}:
            raise ValidationError({"awards": [shape]})
        match, winner = item["match"], item["winner"]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (match, winner)):
            raise ValidationError({"awards": [shape]})
        if match in awards:
            raise ValidationError({"awards": [shape]})
        awards[match] = winner
    return awards


ADAPTER = SputoAdapter()
