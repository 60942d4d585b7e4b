"""``python manage.py demo``: a realistic demo club, created once.

Running it again changes nothing (it says so); ``--reset`` deletes the demo club and its
demo accounts first and builds them anew.
"""

import random
from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from clubs import services
from clubs.models import Club, Role, Season
from matches.services import record_game
from rules.bots import singapore as singapore_bot
from rules.bots import spazzumazz as spazzumazz_bot
from rules.bots import sputo as sputo_bot

DEMO_SLUG = "la-matta"
PRIVATE_SLUG = "riservato"
DEMO_PASSWORD = "carte-in-tavola-2026"
SPAZZUMAZZ_GAMES = 40
SPUTO_GAMES = 16
SINGAPORE_HANDS = 30
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
            description=(
                "Carte bolognesi e francesi dal 1987: Sputo a eliminazione, tavoli di "
                "Singapore con il loro libro dei debiti e, a fine serata, Spazz'u'mazz per "
                "decidere chi è l'idiota. Chi passa è il benvenuto."
            ),
            venue="Circolo ARCI San Vitale, via San Vitale 12",
            meeting_times="Il venerdì dalle 21, la domenica dalle 16",
        )
        scorer = self._user(User, "demo-scorer", "Nicola", "Pellegrini")
        services.add_member(club=club, user=scorer, role=Role.SCORER)
        names = rng.sample([(f, ln) for f in FIRST for ln in LAST], 20)
        for n, (first, last) in enumerate(names, 1):
            user = self._user(User, f"demo-player{n:02d}", first, last)
            services.add_member(club=club, user=user, role=Role.MEMBER)
        for guest in GUESTS:
            services.add_guest(club=club, display_name=guest)
        today = timezone.localdate()
        first_year = today.year if today.month >= 9 else today.year - 1
        for year in (first_year - 1, first_year):
            Season.objects.create(
                club=club,
                name=f"Stagione {year}/{str(year + 1)[-2:]}",
                start=date(year, 9, 1),
                end=date(year + 1, 8, 31),
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
        self._play_games(club, scorer, rng)

    def _play_games(self, club, scorer, rng):
        """A few weeks of club nights, played by the rules engine's bots and recorded
        through the same service as real results."""
        people = list(club.players.active())
        by_name = {p.display_name: p for p in people}
        now = timezone.now()

        def when(n: int, of: int):
            """The n-th of ``of`` games, spread over the last 60 evenings."""
            day = timezone.localtime(now - timedelta(days=60 * (of - n) // of + 1))
            return day.replace(hour=rng.randint(20, 23), minute=rng.randrange(60))

        def record(record: dict, played_at) -> None:
            season = club.seasons.filter(start__lte=played_at.date(), end__gte=played_at.date())
            record_game(
                club=club,
                record=record,
                players=by_name,
                recorded_by=scorer,
                played_at=played_at,
                season=season.first(),
            )

        regulars = rng.sample(people, 12)
        for n in range(SPAZZUMAZZ_GAMES):
            table = [p.display_name for p in rng.sample(regulars, rng.randint(3, 5))]
            record(spazzumazz_bot.play_game(rng.randrange(10**9), table), when(n, SPAZZUMAZZ_GAMES))
        for n in range(SPUTO_GAMES):
            pair = [p.display_name for p in rng.sample(people, 2)]
            game = sputo_bot.random_record(rng.randrange(10**9), players=pair)
            record(game, when(n, SPUTO_GAMES))
        for n in range(SINGAPORE_HANDS):
            dealer, opponent, *bystanders = (p.display_name for p in rng.sample(people, 4))
            hand = singapore_bot.random_record(rng.randrange(10**9))
            quotas = rng.randint(2, 6)
            cover = rng.randint(1, quotas - 1)
            hand["stake"] = {
                "dealer": dealer,
                "opponent": opponent,
                "dealer_quotas": quotas,
                "covers": {opponent: cover, bystanders[0]: quotas - cover},
                "winner": rng.choice([dealer, opponent]),
            }
            record(hand, when(n, SINGAPORE_HANDS))

    def _print_logins(self):
        self.stdout.write(
            "Demo logins (password for all: %s):\n"
            "  demo-admin     admin of the demo clubs (also a Django admin superuser)\n"
            "  demo-scorer    scorer\n"
            "  demo-player01  member (…up to demo-player20)" % DEMO_PASSWORD
        )
