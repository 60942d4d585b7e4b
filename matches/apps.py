from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Games and matches")

    def ready(self):
        from ledger.sources import register, register_legs
        from matches import signals  # noqa: F401  (the boards hear of renamed players)
        from matches.singapore.ledger_legs import legs_of_postings
        from matches.singapore.ledger_sources import describe_hands

        register("hand", describe_hands)
        register_legs("hand", legs_of_postings)
