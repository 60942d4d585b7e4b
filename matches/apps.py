from importlib import import_module

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Games and matches")

    def ready(self):
        # Each game plugs itself in from its folder's adapter module (the result cycle's
        # adapter, the ledger's describers): imported here, once the models are loaded.
        for game in settings.GAMES:
            import_module(f"{game}.adapter")
