from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from clubs.models import Game


class NightForm(forms.Form):
    starts_at = forms.DateTimeField(
        label=_("Starts"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    games = forms.MultipleChoiceField(
        label=_("What will be played"),
        choices=Game.choices,
        widget=forms.CheckboxSelectMultiple,
    )
    capacity = forms.IntegerField(
        label=_("Places"),
        min_value=1,
        max_value=10_000,
        required=False,
        help_text=_("Empty: no cap. Past the cap, a yes waits on the list."),
    )
    note = forms.CharField(label=_("Note"), max_length=200, required=False)
