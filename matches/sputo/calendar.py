"""iCalendar feeds (the ``icalendar`` package): a club's tournaments, and a person's
scheduled matches. Events have stable UIDs, so a calendar app updates them in place."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

from matches.sputo import reads
from matches.sputo.models import TournamentStatus

DOMAIN = "circolo"
TOURNAMENT_HOURS = 3
MATCH_MINUTES = 30


def _calendar(name: str) -> Calendar:
    cal = Calendar()
    cal.add("prodid", "-//Circolo//Sputo//IT")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", name)
    return cal


def _url(request, path: str) -> str:
    if request is not None:
        return request.build_absolute_uri(path)
    return settings.SITE_URL.rstrip("/") + path


def club_feed(club, *, request=None) -> bytes:
    cal = _calendar(_("%(club)s: Sputo tournaments") % {"club": club.name})
    stamp = timezone.now()
    for tournament in club.tournaments.exclude(status=TournamentStatus.DRAFT).order_by(
        "starts_at", "pk"
    ):
        event = Event()
        event.add("uid", f"sputo-tournament-{tournament.pk}@{DOMAIN}")
        event.add("dtstamp", stamp)
        event.add("dtstart", tournament.starts_at)
        event.add("dtend", tournament.starts_at + timedelta(hours=TOURNAMENT_HOURS))
        event.add("summary", f"Sputo: {tournament.name}")
        event.add("location", tournament.venue or club.venue or club.name)
        event.add("url", _url(request, tournament.get_absolute_url()))
        event.add(
            "status",
            "CANCELLED" if tournament.status == TournamentStatus.CANCELLED else "CONFIRMED",
        )
        event.add("description", tournament.get_status_display())
        cal.add_component(event)
    return cal.to_ical()


def player_feed(user, *, request=None) -> bytes:
    cal = _calendar(_("My Sputo matches"))
    stamp = timezone.now()
    for match in reads.next_matches(user):
        tournament = match.tournament
        event = Event()
        start = max(tournament.starts_at, stamp - timedelta(minutes=5))
        event.add("uid", f"sputo-match-{match.pk}@{DOMAIN}")
        event.add("dtstamp", stamp)
        event.add("dtstart", start)
        event.add("dtend", start + timedelta(minutes=MATCH_MINUTES))
        event.add(
            "summary",
            f"Sputo: {match.player_a.display_name} – {match.player_b.display_name} "
            f"({match.round_label})",
        )
        event.add("location", tournament.venue or match.club.venue or match.club.name)
        event.add("url", _url(request, match.get_absolute_url()))
        event.add("description", tournament.name)
        cal.add_component(event)
    return cal.to_ical()
