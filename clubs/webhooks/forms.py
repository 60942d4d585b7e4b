from django import forms
from django.utils.translation import gettext_lazy as _

from clubs.webhooks.models import Event, Webhook


class WebhookForm(forms.Form):
    """A new webhook: the address (checked by the service) and the events to send to it."""

    url = forms.CharField(
        label=_("Address"),
        max_length=500,
        help_text=Webhook._meta.get_field("url").help_text,
        widget=forms.URLInput(attrs={"placeholder": "https://", "inputmode": "url"}),
    )
    events = forms.MultipleChoiceField(
        label=_("Events"),
        choices=Event.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Event.RESULT_CONFIRMED],
        error_messages={"required": _("Choose at least one event.")},
    )
