from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClubsConfig(AppConfig):
    name = "clubs"
    verbose_name = _("Clubs")

    def ready(self):
        # The clubs' own parts of the club page, of the kept member pages and of the demo
        # (``plumbing.parts``).
        from clubs import club_page, demo
        from clubs.inbox.services import version_key
        from clubs.inbox.views import waiting_section

        self.club_sections = (waiting_section, club_page.seasons)
        self.club_tabs = (club_page.overview_tab, club_page.members_tab, club_page.settings_tab)
        self.member_page_versions = (version_key,)
        self.demo = (demo,)
