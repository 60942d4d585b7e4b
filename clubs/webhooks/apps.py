from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    """An app of its own inside ``clubs`` (its floor): its tables, migrations and tasks are
    found by Django and Celery like any app's."""

    name = "clubs.webhooks"
    label = "webhooks"
    verbose_name = _("Webhooks")
