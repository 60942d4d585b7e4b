from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from clubs.accounts import waiting_for_confirmation
from clubs.models import Club, Invitation, Player, Role
from clubs.widgets import DateInput, DateTimeInput
from rules.house_rules import SingaporeRules, SpazzumazzRules


def add_service_errors(form, error: ValidationError, aliases: dict | None = None) -> None:
    """A service's ``ValidationError`` shown on the form, each message at its field (the
    others above the form); ``aliases``: the form's name of a field the service names
    otherwise."""
    aliases = aliases or {}
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            field = aliases.get(field, field)
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error.messages)


class ClubForm(forms.ModelForm):
    class Meta:
        model = Club
        fields = [
            "name",
            "city",
            "description",
            "venue",
            "meeting_times",
            "is_public",
            "members_see_money",
            "point_value",
            "currency",
            "language",
        ]
        # Shown and read in the page's language (0,10 in Italian): a text box, since a
        # browser's number box refuses a decimal comma.
        localized_fields = ["point_value"]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "point_value": forms.TextInput(attrs={"inputmode": "decimal"}),
        }

    def clean_currency(self):
        return self.cleaned_data["currency"].strip().upper()


class SeasonForm(forms.Form):
    """A season's fields; ``services.create_season`` and ``update_season`` check the rest
    (names, order of the dates, overlaps) for the pages and the API alike."""

    name = forms.CharField(label=_("Name"), max_length=80)
    start = forms.DateField(label=_("Start"), widget=DateInput())
    end = forms.DateField(label=_("End"), widget=DateInput())

    def __init__(self, *args, club: Club, **kwargs):
        kwargs.setdefault("prefix", "season")
        super().__init__(*args, **kwargs)
        self.club = club


class SingaporeRulesForm(forms.Form):
    """Singapore's house rules; the rules engine validates the result again on save."""

    joker_limit = forms.ChoiceField(
        label=_("Jokers per combination"),
        choices=[
            ("half", _("No more jokers than natural cards")),
            ("one", _("At most one joker")),
            ("free", _("Any number, with at least one natural card")),
        ],
    )
    joker_sequence_multipliers = forms.BooleanField(
        label=_("A 10-card sequence with jokers pays x4 (one joker) or x3 (two)"), required=False
    )
    rounding = forms.ChoiceField(
        label=_("Rounding of the loser's points"),
        choices=[
            ("nearest", _("To the nearest ten")),
            ("up", _("Up to the next ten")),
            ("none", _("None")),
        ],
    )
    cap_applies_to = forms.ChoiceField(
        label=_("The cap applies to"),
        choices=[
            ("base", _("The card points, before the multiplier")),
            ("total", _("The total, after the multiplier")),
        ],
    )
    cap = forms.IntegerField(
        label=_("Cap"), min_value=0, required=False, help_text=_("Leave empty for no cap.")
    )

    defaults = SingaporeRules()


class SpazzumazzRulesForm(forms.Form):
    idiot_min_games = forms.IntegerField(
        label=_("Minimum games to be counted in the idiot ranking"), min_value=1
    )

    defaults = SpazzumazzRules()


HOUSE_RULE_FORMS = {"singapore": SingaporeRulesForm, "spazzumazz": SpazzumazzRulesForm}


class GuestForm(forms.Form):
    display_name = forms.CharField(label=_("Guest's name"), max_length=80)


class RenameForm(forms.Form):
    """A guest's new name; one form per guest on the members page, each with its own ids."""

    display_name = forms.CharField(label=_("New name"), max_length=80)


def choose_from(field: forms.ModelChoiceField, players: list[Player]) -> None:
    """The field's options from players already read (a page that lists them anyway), not
    from a query of their own; its queryset still decides what a submitted choice may be."""
    empty = [("", field.empty_label)] if field.empty_label is not None else []
    field.choices = [*empty, *((p.pk, field.label_from_instance(p)) for p in players)]


class MergeForm(forms.Form):
    """Which guest, into whom: the names are the players' names in the club, as everywhere.
    ``players``: the club's active players by name, if already read (for the options)."""

    source = forms.ModelChoiceField(label=_("Guest"), queryset=Player.objects.none())
    target = forms.ModelChoiceField(label=_("Merge into"), queryset=Player.objects.none())

    def __init__(self, *args, club: Club, players: list[Player] | None = None, **kwargs):
        kwargs.setdefault("auto_id", "merge-%s")
        super().__init__(*args, **kwargs)
        active = club.players.active().order_by(Lower("display_name"), "pk")
        self.fields["source"].queryset = active.guests()
        self.fields["target"].queryset = active
        if players is not None:
            choose_from(self.fields["source"], [p for p in players if p.user_id is None])
            choose_from(self.fields["target"], players)

    def clean(self):
        data = super().clean()
        if data.get("source") and data.get("source") == data.get("target"):
            raise forms.ValidationError(_("A guest cannot be merged into themselves."))
        return data


class InvitationForm(forms.ModelForm):
    class Meta:
        model = Invitation
        fields = ["email", "role", "player", "max_uses", "expires_at"]
        widgets = {"expires_at": DateTimeInput()}

    def __init__(self, *args, club: Club, players: list[Player] | None = None, **kwargs):
        kwargs.setdefault("auto_id", "invitation-%s")
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = club.players.active().guests()
        if players is not None:
            choose_from(self.fields["player"], [p for p in players if p.user_id is None])
        self.fields["player"].required = False
        self.fields["expires_at"].required = False  # empty: the model's default, two weeks


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)


class SignUpForm(UserCreationForm):
    """The fields of a new account; ``accounts.sign_up`` creates it (and checks again)."""

    email = forms.EmailField(
        label=_("E-mail"),
        required=True,
        help_text=_("We send a link to this address to confirm it."),
    )
    first_name = forms.CharField(label=_("First name"), max_length=150, required=False)
    last_name = forms.CharField(label=_("Last name"), max_length=150, required=False)

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email", "first_name", "last_name"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Our own words: Django's Italian catalogue runs two sentences together here.
        self.fields["username"].help_text = _(
            "Required: at most 150 characters. Letters, digits and @ . + - _ only."
        )


class LoginForm(AuthenticationForm):
    """Django's login form, which also tells the owner of an account waiting for its e-mail
    confirmation (right password, not confirmed yet) what to do."""

    unconfirmed = False

    def clean(self):
        try:
            return super().clean()
        except forms.ValidationError:
            username = self.cleaned_data.get("username")
            password = self.cleaned_data.get("password")
            if username and password:
                if waiting_for_confirmation(username=username, password=password):
                    self.unconfirmed = True
                    raise forms.ValidationError(
                        _(
                            "Your e-mail address is not confirmed yet: open the link we "
                            "sent you, or ask for a new one."
                        ),
                        code="unconfirmed",
                    ) from None
            raise


class EmailForm(forms.Form):
    email = forms.EmailField(label=_("E-mail"))


class ProfileForm(forms.Form):
    display_name = forms.CharField(
        label=_("Display name"),
        max_length=80,
        help_text=_("Your name in every club you belong to, and in the clubs you join."),
    )
