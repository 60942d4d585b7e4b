from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OnceConfig(AppConfig):
    name = "plumbing.once"
    label = "once"
    verbose_name = _("Writes sent once")
