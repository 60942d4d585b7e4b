"""``python manage.py demo``: a realistic demo club, created once.

Running it again changes nothing (it says so); ``--reset`` deletes the demo club and its
demo accounts first and builds them anew.
"""

import random
from datetime import date

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from clubs import services
from clubs.models import Club, Role, Season

DEMO_SLUG = "la-matta"
PRIVATE_SLUG = "riservato"
DEMO_PASSWORD = "carte-in-tavola-2026"
FIRST = [
    "Giulia",
    "Marco",
    "Francesca",
    "Luca",
    "Chiara",
    "Alessandro",
    "Sara",
    "Matteo",
    "Elena",
    "Davide",
    "Martina",
    "Simone",
    "Valentina",
    "Andrea",
    "Federica",
    "Stefano",
    "Silvia",
    "Paolo",
    "Laura",
    "Giorgio",
    "Anna",
    "Roberto",
]
LAST = [
    "Rossi",
    "Bianchi",
    "Esposito",
    "Romano",
    "Colombo",
    "Ricci",
    "Marino",
    "Greco",
    "Bruno",
    "Gallo",
    "Conti",
    "De Luca",
    "Mancini",
    "Costa",
    "Giordano",
    "Rizzo",
    "Lombardi",
    "Moretti",
    "Barbieri",
    "Fontana",
    "Santoro",
    "Mariani",
]
GUESTS = ["Zio Pino", "Nonna Rina", "Il Professore", "Tonino", "Carmela", "Beppe", "Wanda", "Ugo"]


class Command(BaseCommand):
    help = "Create the demo club with about 30 players (once); --reset builds it anew."

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true", help="delete the demo club first")

    def handle(self, *args, reset: bool = False, **options):
        User = get_user_model()
        if reset:
            Club.objects.filter(slug__in=[DEMO_SLUG, PRIVATE_SLUG]).delete()
            User.objects.filter(username__startswith="demo-").delete()
        if Club.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write(
                f"The demo club is already there (/clubs/{DEMO_SLUG}/); nothing to do."
            )
            self._print_logins()
            return
        try:
            with transaction.atomic():
                self._build(User)
        except ValidationError as error:
            raise CommandError(f"Cannot build the demo: {'; '.join(error.messages)}") from error
        self.stdout.write(self.style.SUCCESS(f"Demo club created: /clubs/{DEMO_SLUG}/"))
        self._print_logins()

    def _user(self, User, username, first, last, *, staff=False):
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User(
                username=username,
                first_name=first,
                last_name=last,
                email=f"{username}@example.org",
                is_staff=staff,
                is_superuser=staff,
            )
            user.set_password(DEMO_PASSWORD)
            user.save()
        return user

    def _build(self, User):
        rng = random.Random(2026)
        admin = self._user(User, "demo-admin", "Giovanna", "Ferrari", staff=True)
        club = services.create_club(
            name="Circolo La Matta",
            founder=admin,
            slug=DEMO_SLUG,
            city="Bologna",
            is_public=True,
            language="it",
        )
        scorer = self._user(User, "demo-scorer", "Nicola", "Pellegrini")
        services.add_member(club=club, user=scorer, role=Role.SCORER)
        names = rng.sample([(f, ln) for f in FIRST for ln in LAST], 20)
        for n, (first, last) in enumerate(names, 1):
            user = self._user(User, f"demo-player{n:02d}", first, last)
            services.add_member(club=club, user=user, role=Role.MEMBER)
        for guest in GUESTS:
            services.add_guest(club=club, display_name=guest)
        Season.objects.create(
            club=club, name="Stagione 2025/26", start=date(2025, 9, 1), end=date(2026, 8, 31)
        )
        Season.objects.create(
            club=club, name="Stagione 2026/27", start=date(2026, 9, 1), end=date(2027, 8, 31)
        )
        services.update_house_rules(club=club, game="singapore", values={}, by=admin)
        services.update_house_rules(
            club=club, game="singapore", values={"joker_sequence_multipliers": True}, by=admin
        )
        services.update_house_rules(
            club=club, game="spazzumazz", values={"idiot_min_games": 5}, by=admin
        )
        private = services.create_club(
            name="Circolo dei Giocatori Riservati",
            founder=admin,
            slug=PRIVATE_SLUG,
            city="Modena",
            is_public=False,
        )
        services.add_guest(club=private, display_name="Ospite Misterioso")

    def _print_logins(self):
        self.stdout.write(
            "Demo logins (password for all: %s):\n"
            "  demo-admin     admin of the demo clubs (also a Django admin superuser)\n"
            "  demo-scorer    scorer\n"
            "  demo-player01  member (…up to demo-player20)" % DEMO_PASSWORD
        )
