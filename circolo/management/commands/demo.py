"""``python manage.py demo``: a realistic demo club, created once, from every app's parts.

Running it again changes nothing (it says so); ``--reset`` deletes the demo clubs and the
demo accounts first and builds them anew. The parts and how an app adds one:
``clubs/demo.py``.
"""

import pkgutil
from importlib import import_module
from types import ModuleType

from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import module_has_submodule

from clubs import demo as clubs_demo


def demo_parts() -> list[ModuleType]:
    """Every installed app's demo parts, in ``INSTALLED_APPS`` order: ``<app>.demo`` if it
    defines ``build``, then the modules of a ``<app>/demo/`` package in name order."""
    parts = []
    for app in apps.get_app_configs():
        if not module_has_submodule(app.module, "demo"):
            continue
        module = import_module(f"{app.name}.demo")
        modules = [module]
        if hasattr(module, "__path__"):
            names = sorted(info.name for info in pkgutil.iter_modules(module.__path__))
            modules += [import_module(f"{module.__name__}.{name}") for name in names]
        parts += [m for m in modules if callable(getattr(m, "build", None))]
    return parts


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
