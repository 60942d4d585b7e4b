"""The demo's first part: its clubs, people, seasons and house rules.

``python manage.py demo`` (``circolo/management/commands/demo.py``) builds the demo from
parts, one or more per app, so that each feature adds its own demo without touching the
others'. A *part* is a module that defines ``build(demo: Demo)``, lent by its app's config
(``demo``, ``plumbing.parts``; each game's in its ``Game``). The command runs every part of
every installed app in ``INSTALLED_APPS`` order (a game's in the games' order), all in one
transaction: a part may use what the parts of the apps before it made, through ``demo``.

A part draws its random choices from ``demo.rng("<its name>")``, so adding a part changes
no other part's data. A part that makes rows a club's deletion would not remove may define
``reset()``: ``demo --reset`` runs the parts' ``reset()`` in reverse order, this one last.
"""

import random
from dataclasses import dataclass, field
from datetime import date, datetime

from django.contrib.auth import get_user_model
from django.utils import timezone

from clubs import services
from clubs.models import Club, Role, Season

SEED = 2026
DEMO_SLUG = "la-matta"
PRIVATE_SLUG = "riservato"
DEMO_PASSWORD = "carte-in-tavola-2026"
ADMIN, SCORER = "demo-admin", "demo-scorer"
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
LOGINS = (
    f"Demo logins (password for all: {DEMO_PASSWORD}):\n"
    f"  {ADMIN}     admin of the demo clubs (also a Django admin superuser)\n"
    f"  {SCORER}    scorer\n"
    "  demo-player01  member (…up to demo-player20)"
)


@dataclass
class Demo:
    """What the demo's parts share: the moment it is built, and what the parts made so far
    (this part fills ``clubs`` by slug and ``users`` by username)."""

    now: datetime
    clubs: dict[str, Club] = field(default_factory=dict)
    users: dict = field(default_factory=dict)

    def rng(self, part: str) -> random.Random:
        """The random choices of one part, the same at every build."""
        return random.Random(f"{SEED}:{part}")


def is_built() -> bool:
    return Club.objects.filter(slug=DEMO_SLUG).exists()


def reset() -> None:
    """Delete the demo clubs (with everything in them) and the demo accounts."""
    Club.objects.filter(slug__in=[DEMO_SLUG, PRIVATE_SLUG]).delete()
    get_user_model().objects.filter(username__startswith="demo-").delete()


def _user(demo: Demo, username: str, first: str, last: str, *, staff: bool = False):
    User = get_user_model()
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
    demo.users[username] = user
    return user


def build(demo: Demo) -> None:
    """The public club La Matta (an admin, a scorer, 20 members, 8 guests, two seasons
    around today, house rules) and a private club of the same admin."""
    rng = demo.rng("clubs")
    admin = _user(demo, ADMIN, "Giovanna", "Ferrari", staff=True)
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
    demo.clubs[DEMO_SLUG] = club
    scorer = _user(demo, SCORER, "Nicola", "Pellegrini")
    services.add_member(club=club, user=scorer, role=Role.SCORER)
    names = rng.sample([(first, last) for first in FIRST for last in LAST], 20)
    for n, (first, last) in enumerate(names, 1):
        user = _user(demo, f"demo-player{n:02d}", first, last)
        services.add_member(club=club, user=user, role=Role.MEMBER)
    for guest in GUESTS:
        services.add_guest(club=club, display_name=guest)
    today = timezone.localdate(demo.now)
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
    demo.clubs[PRIVATE_SLUG] = private
    services.add_guest(club=private, display_name="Ospite Misterioso")
