"""The boards' tasks: the end-of-evening report by e-mail. Their names are the ones they had
when they lived in ``matches/tasks.py`` (queued messages and the beat schedule name them)."""

from datetime import date, timedelta

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from clubs.access import ClubAccess
from clubs.mail import render_subject
from clubs.models import Club
from matches import boards
from matches.boards.models import NightReport
from matches.boards.views import night_sections, render_section
from matches.results.models import GameRecord


def _night_message(club, night: date, sections, *, money: bool) -> tuple[str, str, str]:
    """The report's subject, text and HTML, with the night's money or without it."""
    context = {
        "club": club,
        "day": night,
        "link": settings.SITE_URL.rstrip("/")
        + reverse("boards:night", args=[club.slug, night.isoformat()]),
        "preferences": settings.SITE_URL.rstrip("/") + reverse("clubs:profile"),
        "html_sections": [
            (s, render_section(s, club=club, day=night, money=money)) for s in sections
        ],
        "text_sections": [
            (s, render_section(s, text=True, club=club, day=night, money=money)) for s in sections
        ],
    }
    subject = render_subject("matches/night_email_subject.txt", context)
    text = render_to_string("matches/night_email.txt", context)
    html = render_to_string("matches/night_email.html", context)
    return subject, text, html


@shared_task(
    name="matches.tasks.send_night_report",
    acks_late=True,
    autoretry_for=(OSError,),
    retry_backoff=True,
    max_retries=5,
)
def send_night_report(club_id: int, day: str) -> str:
    """E-mail the club night's report to the members who asked for it, once: the report's
    row, locked and stamped, makes a second run (a redelivery) a no-op."""

    night = date.fromisoformat(day)
    club = Club.objects.filter(pk=club_id).first()
    if club is None:
        return "no such club"
    with transaction.atomic():
        NightReport.objects.bulk_create([NightReport(club=club, day=night)], ignore_conflicts=True)
        report = NightReport.objects.select_for_update().get(club=club, day=night)
        if report.sent_at is not None:
            return "already sent"
        # Each member's address, and whether they see the club's money (the report's
        # figures): one version of the message for those who do, one for those who do not.
        recipients = sorted(
            (email, ClubAccess(club=club, role=role).sees_money())
            for email, role in club.memberships.filter(
                night_report=True, user__is_active=True
            ).values_list("user__email", "role")
            if email
        )
        with translation.override(club.language):
            sections = night_sections(club, night)
            if not sections or not recipients:
                report.sent_at, report.recipients = timezone.now(), 0
                report.save(update_fields=["sent_at", "recipients"])
                return "nothing to send"
            messages = {
                money: _night_message(club, night, sections, money=money)
                for money in {money for _email, money in recipients}
            }
        for email, money in recipients:  # one message each: nobody sees the others' addresses
            subject, text, html = messages[money]
            message = EmailMultiAlternatives(subject, text, None, [email])
            message.attach_alternative(html, "text/html")
            message.send()
        report.sent_at, report.recipients = timezone.now(), len(recipients)
        report.save(update_fields=["sent_at", "recipients"])
    return f"sent to {len(recipients)}"


@shared_task(name="matches.tasks.send_night_reports", acks_late=True)
def send_night_reports(day: str | None = None) -> int:
    """Daily (beat, in the morning): queue the report of last night for every club that
    played. Safe to run twice: each report goes once."""
    night = date.fromisoformat(day) if day else boards.night_of(timezone.now()) - timedelta(days=1)
    start, end = boards.night_bounds(night)
    clubs = (
        GameRecord.objects.in_force()
        .filter(played_at__gte=start, played_at__lt=end)
        .order_by()
        .values_list("club_id", flat=True)
        .distinct()
    )
    count = 0
    for club_id in clubs:
        send_night_report.delay_on_commit(club_id=club_id, day=night.isoformat())
        count += 1
    return count
