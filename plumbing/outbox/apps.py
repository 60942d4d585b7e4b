from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OutboxConfig(AppConfig):
    name = "plumbing.outbox"
    label = "outbox"  # its tables, migrations and task names keep the name they were born with
    verbose_name = _("Task outbox")
