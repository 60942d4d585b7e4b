from django import forms
from django.utils import formats
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from clubs.widgets import PeopleSelect
from ledger.templatetags.ledger import unit_label


class PaymentForm(forms.Form):
    """Record a payment; the service checks the rest (who may, the amount for its unit)."""

    payer = forms.ModelChoiceField(label=_("Who paid"), queryset=None, widget=PeopleSelect)
    payee = forms.ModelChoiceField(label=_("To whom"), queryset=None, widget=PeopleSelect)
    amount = forms.CharField(
        label=_("Amount"), max_length=20, widget=forms.TextInput(attrs={"inputmode": "decimal"})
    )
    unit = forms.ChoiceField(label=_("Unit"))

    def __init__(self, *args, club: Club, own_player=None, any_payer: bool, units, **kwargs):
        super().__init__(*args, **kwargs)
        players = club.players.active()
        self.fields["payer"].queryset = players
        self.fields["payee"].queryset = players
        if not any_payer:
            # A member is offered only themself; anyone else is refused by the service (403).
            mine = [own_player] if own_player is not None else []
            self.fields["payer"].choices = [(p.pk, p.display_name) for p in mine]
        self.fields["unit"].choices = [(u, unit_label(u)) for u in units]
        if own_player is not None:
            self.fields["payer"].initial = own_player.pk

    def offer(self, players: list[tuple[int, str]]) -> None:
        """Offer these (id, name) of the club's active players, read already (a page that
        keeps them), instead of asking the database when the form is shown."""
        for name in ("payer", "payee"):
            field = self.fields[name]
            if name == "payer" and hasattr(field, "_choices"):  # a member: only themself
                continue
            empty = [("", field.empty_label)] if field.empty_label is not None else []
            field.choices = [*empty, *players]

    def clean_amount(self):
        # "12,50" in Italian, "12.50" in English: the active language's separators.
        return formats.sanitize_separators(self.cleaned_data["amount"].strip())
