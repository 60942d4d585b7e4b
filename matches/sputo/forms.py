"""The forms of the tournament pages. A match's result form turns a few taps (who won each
game, the loser's cards left) into the same payload the API takes."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.forms import add_service_errors
from clubs.widgets import DateTimeInput
from matches.sputo.models import BEST_OF, Format, Seeding, Tournament, Variant
from rules.sputo import LAYOUT_TOTALS

#: The formats the form offers, each with its sentence.
FORMAT_SENTENCES = [
    (
        Format.SINGLE_ELIMINATION,
        gettext_lazy("A knockout: lose once and you are out. Suits a big club's cup."),
    ),
    (
        Format.DOUBLE_ELIMINATION,
        gettext_lazy(
            "A knockout with a second chance: out after two lost matches, the losers' "
            "bracket's winner meeting the winners' in the grand final."
        ),
    ),
    (
        Format.ROUND_ROBIN,
        gettext_lazy("Everyone meets everyone; the table decides. Suits a small club."),
    ),
    (
        Format.GROUPS_THEN_KNOCKOUT,
        gettext_lazy(
            "Groups where everyone meets everyone, then the best of each group in a knockout."
        ),
    ),
    (
        Format.SWISS,
        gettext_lazy(
            "A set number of rounds, each pairing players on the same score who have not "
            "met. Suits a long night with many players."
        ),
    ),
]

#: Which formats each of the form's format fields belongs to (the page hides the others).
FIELD_FORMATS = {
    "legs": [Format.ROUND_ROBIN, Format.GROUPS_THEN_KNOCKOUT],
    "groups": [Format.GROUPS_THEN_KNOCKOUT],
    "advance": [Format.GROUPS_THEN_KNOCKOUT],
    "swiss_rounds": [Format.SWISS],
    "knockout_format": [Format.GROUPS_THEN_KNOCKOUT],
    "grand_final_reset": [Format.DOUBLE_ELIMINATION, Format.GROUPS_THEN_KNOCKOUT],
    "third_place": [Format.SINGLE_ELIMINATION, Format.GROUPS_THEN_KNOCKOUT],
    "final_best_of": [
        Format.SINGLE_ELIMINATION,
        Format.DOUBLE_ELIMINATION,
        Format.GROUPS_THEN_KNOCKOUT,
    ],
}


class FormatSelect(forms.RadioSelect):
    """The formats as radio buttons, each with its sentence under its name (in its label,
    so that a tap on the sentence chooses it too)."""

    sentences: dict = {}

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        sentence = self.sentences.get(value, "")
        if sentence:
            label = format_html('{}<span class="format-sentence">{}</span>', label, sentence)
        return super().create_option(name, value, label, selected, index, subindex, attrs)


class TournamentForm(forms.ModelForm):
    format = forms.ChoiceField(
        label=gettext_lazy("Format"),
        choices=[(f.value, f.label) for f, _s in FORMAT_SENTENCES],
        initial=Format.SINGLE_ELIMINATION,
        required=False,  # not given: a single elimination, as before formats
        widget=FormatSelect(attrs={"class": "format-choice"}),
    )
    legs = forms.TypedChoiceField(
        label=gettext_lazy("Everyone meets everyone"),
        choices=[(1, gettext_lazy("Once")), (2, gettext_lazy("Twice (two legs)"))],
        coerce=int,
        initial=1,
        required=False,
        empty_value=1,
    )
    groups = forms.IntegerField(
        label=gettext_lazy("Groups"), min_value=1, max_value=64, required=False
    )
    advance = forms.IntegerField(
        label=gettext_lazy("Going through from each group"),
        min_value=1,
        max_value=64,
        required=False,
    )
    swiss_rounds = forms.IntegerField(
        label=gettext_lazy("Rounds"), min_value=1, max_value=30, required=False
    )
    knockout_format = forms.ChoiceField(
        label=gettext_lazy("Then"),
        choices=[
            (Format.SINGLE_ELIMINATION, gettext_lazy("A single elimination")),
            (Format.DOUBLE_ELIMINATION, gettext_lazy("A double elimination")),
        ],
        required=False,
    )
    grand_final_reset = forms.BooleanField(
        label=gettext_lazy(
            "Grand final reset (if the losers' bracket's winner wins it, a second match decides)"
        ),
        required=False,
        initial=True,
    )
    tables = forms.IntegerField(
        label=gettext_lazy("Sputo tables (empty: no table numbers)"),
        min_value=1,
        max_value=500,
        required=False,
    )
    capacity = forms.IntegerField(
        label=gettext_lazy("Most players (empty: no limit)"),
        min_value=2,
        required=False,
    )
    starts_at = forms.DateTimeField(
        label=gettext_lazy("Starts"),
        widget=DateTimeInput(),
    )
    suit_match = forms.BooleanField(
        label=gettext_lazy("Suit match (experts: a card also goes on a centre card of its suit)"),
        required=False,
    )
    splash = forms.BooleanField(
        label=gettext_lazy("Splash (two matching centre cards: calling it blocks the opponent)"),
        required=False,
    )
    final_best_of = forms.TypedChoiceField(
        label=gettext_lazy("The final"),
        choices=[("", gettext_lazy("As the other matches")), *BEST_OF],
        coerce=int,
        empty_value=None,
        required=False,
    )

    class Meta:
        model = Tournament
        fields = [
            "name",
            "starts_at",
            "venue",
            "format",
            "legs",
            "groups",
            "advance",
            "swiss_rounds",
            "knockout_format",
            "grand_final_reset",
            "capacity",
            "tables",
            "variant",
            "best_of",
            "final_best_of",
            "third_place",
            "seeding",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["variant"].choices = Variant.choices
        self.fields["seeding"].choices = Seeding.choices
        self.fields["format"].widget.sentences = dict(FORMAT_SENTENCES)
        for name, shown in FIELD_FORMATS.items():
            self.fields[name].widget.attrs["data-formats"] = " ".join(shown)
        if self.instance.pk:
            options = self.instance.options or {}
            self.fields["suit_match"].initial = options.get("suit_match", False)
            self.fields["splash"].initial = options.get("splash", False)

    def clean_format(self) -> str:
        return self.cleaned_data.get("format") or Format.SINGLE_ELIMINATION

    def add_refusal(self, error: ValidationError) -> None:
        """The service's refusal by the fields it names (the others above the form)."""
        add_service_errors(self, error)

    def values(self) -> dict:
        """What the service takes: the fields of the format chosen, not the hidden ones."""
        data = dict(self.cleaned_data)
        data["options"] = {"suit_match": data.pop("suit_match"), "splash": data.pop("splash")}
        for name, shown in FIELD_FORMATS.items():
            if data.get("format") not in shown:
                data.pop(name, None)
        if data.get("format") == Format.GROUPS_THEN_KNOCKOUT:
            data["knockout_format"] = data.get("knockout_format") or Format.SINGLE_ELIMINATION
            if data["knockout_format"] != Format.DOUBLE_ELIMINATION:
                data.pop("grand_final_reset", None)  # a single elimination has no grand final
        return data


class ResultForm(forms.Form):
    """Who won each game and the loser's cards left; or a walkover, a retirement, a
    double forfeit. ``payload()`` is what the services take."""

    OTHER = [
        ("", gettext_lazy("Played as above")),
        ("walkover_a", ""),
        ("walkover_b", ""),
        ("retired_a", ""),
        ("retired_b", ""),
        ("double_forfeit", gettext_lazy("Double forfeit: neither played")),
    ]

    def __init__(self, *args, match, **kwargs):
        super().__init__(*args, **kwargs)
        self.match = match
        a, b = match.player_a, match.player_b
        most = LAYOUT_TOTALS[match.tournament.variant]
        self.games = []
        for n in range(1, match.best_of + 1):
            winner = forms.ChoiceField(
                label=_("Game %(n)s: who won?") % {"n": n},
                choices=[(str(a.pk), a.display_name), (str(b.pk), b.display_name)],
                widget=forms.RadioSelect(attrs={"class": "big-choice"}),
                required=False,  # the first game is needed unless "something else" (clean)
            )
            cards = forms.IntegerField(
                label=_("Cards left to the loser"),
                min_value=1,
                max_value=most,
                required=False,
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "min": 1, "max": most}),
            )
            self.fields[f"winner_{n}"] = winner
            self.fields[f"cards_{n}"] = cards
            self.games.append((n, f"winner_{n}", f"cards_{n}"))
        names = {"a": a.display_name, "b": b.display_name}
        other = []
        for value, label in self.OTHER:
            if value.startswith("walkover_"):
                label = _("%(name)s wins by walkover (the other did not come)") % {
                    "name": names[value[-1]]
                }
            elif value.startswith("retired_"):
                label = _("%(name)s retired during the match (games above so far)") % {
                    "name": names[value[-1]]
                }
            other.append((value, label))
        # Radio buttons, one per line (``other-choice`` in sputo.css): a select's options
        # iterated in a template render as bare text, with nothing to choose.
        self.fields["other"] = forms.ChoiceField(
            label=gettext_lazy("Something else"),
            choices=other,
            required=False,
            widget=forms.RadioSelect(attrs={"class": "other-choice"}),
        )

    def bound_games(self):
        return [(n, self[w], self[c]) for n, w, c in self.games]

    def clean(self):
        data = super().clean()
        first = self.games[0][1]
        if not data.get("other") and not data.get(first) and first not in self.errors:
            self.add_error(first, _("Who won the first game?"))
        for _n, w, c in self.games:
            if data.get(w) and not data.get(c):
                self.add_error(c, _("How many cards did the loser have left?"))
        return data

    def payload(self) -> dict:
        data = self.cleaned_data
        ids = {"a": self.match.player_a_id, "b": self.match.player_b_id}
        games = [
            {"winner": int(data[w]), "cards_left": data[c]}
            for _n, w, c in self.games
            if data.get(w) and data.get(c)
        ]
        other = data.get("other") or ""
        if other.startswith("walkover_"):
            return {"walkover": ids[other[-1]]}
        if other.startswith("retired_"):
            return {"retired": ids[other[-1]], "games": games}
        if other == "double_forfeit":
            return {"double_forfeit": True}
        return {"games": games}
