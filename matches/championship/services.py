"""The championship's writes: its rules (a new version), and the final of the season. One
service each, for the page and the API alike."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import access_club
from clubs.models import Role, Season
from matches.championship import config, standings
from matches.championship.models import Championship
from matches.championship.tasks import season_changed
from matches.sputo import services as sputo
from matches.sputo.models import Format, Seeding, Tournament
from plumbing.errors import Conflict

MAX_FINAL = 256


@transaction.atomic
def set_championship(*, season: Season, by, data) -> Championship:
    """The season's championship rules: a new version when they change (the same rules
    again are the version in force, unchanged), and the season's standings recomputed
    under it after commit. ``config.ConfigError`` names each wrong field."""
    access_club(by, season.club, at_least=Role.ADMIN)
    try:
        rules = config.parse(data)
    except config.ConfigError as error:
        raise ValidationError(error.errors) from error
    current = standings._locked(season)
    if current is not None and current.rules == rules:
        return current
    championship = Championship.objects.create(
        club_id=season.club_id,
        season=season,
        version=(current.version + 1) if current else 1,
        rules=rules,
        created_by=by if by.is_authenticated else None,
    )
    season_changed.delay_on_commit(season_id=season.pk)
    return championship


def _final_start() -> datetime:
    tomorrow = timezone.localdate() + timedelta(days=1)
    return timezone.make_aware(datetime.combine(tomorrow, time(21, 0)))


@transaction.atomic
def create_final(
    *,
    season: Season,
    by,
    top,
    format: str,
    name: str,
    starts_at=None,  # noqa: A002
) -> Tournament:
    """The final of the season: a Sputo tournament of the standings' top ``top``, in
    ``format``, seeded by their rank (manual seeds, 1 the leader), open for the admin to
    draw. Players level at the cut all go in (the rank decides, not the name)."""
    access_club(by, season.club, at_least=Role.ADMIN)
    if isinstance(top, bool) or not isinstance(top, int) or not 2 <= top <= MAX_FINAL:
        raise ValidationError(
            {"top": _("A whole number of players from 2 to %(most)s.") % {"most": MAX_FINAL}}
        )
    if format not in Format.values:
        raise ValidationError(
            {
                "format": _("Not a format: one of %(formats)s.")
                % {"formats": ", ".join(Format.values)}
            }
        )
    rows = [r for r in standings.table(season).rows if r.rank is not None and r.rank <= top]
    if len(rows) < 2:
        raise Conflict(_("The standings have fewer than two ranked players."))
    tournament = sputo.create_tournament(
        club=season.club,
        by=by,
        name=name,
        starts_at=starts_at or _final_start(),
        format=format,
        seeding=Seeding.MANUAL,
        season=season,
    )
    for seed, row in enumerate(rows, 1):
        entrant = sputo.add_entrant(tournament=tournament, player=row.player, by=by)
        sputo.set_manual_seed(entrant=entrant, seed=seed, by=by)
    return tournament
