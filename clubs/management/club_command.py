"""The base of the commands that run over every club, or over the one ``--club`` names."""

from django.core.management.base import BaseCommand, CommandError
from django.db.models import QuerySet

from clubs.models import Club


class ClubCommand(BaseCommand):
    def add_arguments(self, parser):
        parser.add_argument("--club", help="only this club (its slug; default: every club)")

    def clubs(self, slug: str | None) -> QuerySet[Club]:
        """Every club in order, or the one ``slug`` names (an error if there is none)."""
        clubs = Club.objects.order_by("pk")
        if slug is not None:
            clubs = clubs.filter(slug=slug)
            if not clubs.exists():
                raise CommandError(f"No club with the slug {slug!r}.")
        return clubs
