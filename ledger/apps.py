from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = _("Ledger")

    def ready(self):
        # The ledger's tab of the club page and its part of the demo (``plumbing.parts``).
        from ledger import club_page, demo

        self.club_tabs = (club_page.ledger_tab,)
        self.demo = (demo,)
