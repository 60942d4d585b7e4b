"""``python manage.py demo``: a realistic demo club, created once, from every app's parts.

Running it again changes nothing (it says so); ``--reset`` deletes the demo clubs and the
demo accounts first and builds them anew. The parts and how an app adds one:
``clubs/demo.py``.
"""

from types import ModuleType

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from clubs import demo as clubs_demo
from plumbing.parts import parts


def demo_parts() -> list[ModuleType]:
    """Every installed app's demo parts (``demo``: modules with a ``build(demo)``), in
    ``INSTALLED_APPS`` order."""
    return parts("demo")


class Command(BaseCommand):
    help = "Create the demo clubs, about 30 players and their games (once); --reset: anew."

    def add_arguments(self, parser):
        parser.add_argument(
            "--reset", action="store_true", help="delete the demo clubs and accounts first"
        )

    def handle(self, *args, reset: bool = False, verbosity: int = 1, **options):
        parts = demo_parts()
        if reset:
            with transaction.atomic():
                for part in reversed(parts):
                    if callable(getattr(part, "reset", None)):
                        part.reset()
        if clubs_demo.is_built():
            self.stdout.write(
                f"The demo club is already there (/clubs/{clubs_demo.DEMO_SLUG}/); nothing to do."
            )
            self.stdout.write(clubs_demo.LOGINS)
            return
        demo = clubs_demo.Demo(now=timezone.now())
        try:
            with transaction.atomic():
                for part in parts:
                    if verbosity > 1:
                        self.stdout.write(f"  {part.__name__}")
                    part.build(demo)
        except ValidationError as error:
            raise CommandError(f"Cannot build the demo: {'; '.join(error.messages)}") from error
        self.stdout.write(self.style.SUCCESS(f"Demo club created: /clubs/{clubs_demo.DEMO_SLUG}/"))
        self.stdout.write(clubs_demo.LOGINS)
