"""The tables' forms: opening a table, and the hand form (which works without JavaScript:
the card fields are paste boxes, ``matches/static/matches/singapore/hand.js`` adds the card
picker over them)."""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError
from django.utils import formats
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from clubs.widgets import DateInput
from matches.singapore.payload import QUOTA_MAX, HandPayload, HandRefused
from rules.cards import Card

SIDE_BETS = 3
BET_PARTS = ("winner", "loser", "quotas")


def card_tokens(text: str) -> list[str]:
    """Card tokens from a pasted text: ``AS 2S, 3s  10h`` -> ``["AS", "2S", "3s", "10h"]``."""
    return [t for t in re.split(r"[\s,;]+", text or "") if t]


def meld_lists(text: str) -> list[list[str]] | None:
    """Declared combinations: one per line, or separated by ``|``."""
    groups = [card_tokens(part) for part in re.split(r"[|\n]+", text or "")]
    groups = [g for g in groups if g]
    return groups or None


class OpenTableForm(forms.Form):
    name = forms.CharField(label=_("Table"), max_length=80, initial=_("Table 1"))
    date = forms.DateField(label=_("Date"), widget=DateInput())
    point_value = forms.DecimalField(
        label=_("Point value"),
        required=False,
        min_value=0.01,
        max_digits=10,
        decimal_places=2,
        localize=True,
        help_text=_("The money value of one point; empty: the table plays for points only."),
    )
    seats = forms.TypedMultipleChoiceField(
        label=_("Players, in seating order"),
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Tick them going round the table to the right."),
    )
    order = forms.CharField(required=False, widget=forms.HiddenInput)
    first_dealer = forms.TypedChoiceField(
        label=_("First dealer"), coerce=int, required=False, empty_value=None
    )
    first_opponent = forms.TypedChoiceField(
        label=_("First opponent"), coerce=int, required=False, empty_value=None
    )

    def __init__(self, *args, club: Club, **kwargs):
        super().__init__(*args, **kwargs)
        players = [(p.pk, p.display_name) for p in club.players.active().order_by("display_name")]
        self.fields["seats"].choices = players
        draw = [("", _("Draw by lot"))]
        self.fields["first_dealer"].choices = draw + players
        self.fields["first_opponent"].choices = draw + players

    def seat_order(self) -> list[int]:
        """The seats in the order they were ticked (the script records it), else as listed."""
        chosen = self.cleaned_data["seats"]
        order = [int(x) for x in re.findall(r"\d+", self.cleaned_data.get("order") or "")]
        ordered = [pk for pk in order if pk in chosen]
        return ordered + [pk for pk in chosen if pk not in ordered]


class HandForm(forms.Form):
    """A hand's result. ``people`` are the players seated at the table (playing, or sitting
    out: they may cover and bet); ``players`` those who may play it."""

    dealer = forms.TypedChoiceField(label=_("Dealer"), coerce=int)
    opponent = forms.TypedChoiceField(label=_("Opponent"), coerce=int)
    winner = forms.ChoiceField(
        label=_("Who closed?"),
        choices=[("dealer", _("The dealer")), ("opponent", _("The opponent"))],
        widget=forms.RadioSelect,
    )
    winner_cards = forms.CharField(
        label=_("The winner's 10 cards"),
        max_length=200,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
        help_text=_("Tap the cards below, or paste them: AS 2S 3S QH QD QC 7D 8D 9D 10D"),
    )
    loser_cards = forms.CharField(
        label=_("The loser's 10 cards"),
        max_length=200,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}
        ),
    )
    melds = forms.CharField(
        label=_("As laid down (optional)"),
        required=False,
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false"}),
        help_text=_("One combination per line, or separated by |."),
    )
    dealer_quotas = forms.IntegerField(label=_("Dealer's quotas"), min_value=1, initial=1)
    override = forms.CharField(
        label=_("Out of turn: why is it allowed?"),
        required=False,
        max_length=1000,
        help_text=_(
            "Only an admin may allow a hand out of turn; the reason is kept in the hand's "
            "history and the sheet marks the hand."
        ),
    )

    def __init__(self, *args, people, players, **kwargs):
        super().__init__(*args, **kwargs)
        self.people = list(people)
        self.cover_errors: list[str] = []  # about the covers together (their sum)
        playing = [(p.pk, p.display_name) for p in players]
        self.fields["dealer"].choices = playing
        self.fields["opponent"].choices = playing
        for person in self.people:
            self.fields[f"cover_{person.pk}"] = forms.IntegerField(
                label=person.display_name, required=False, min_value=0
            )
        everyone = [("", "—")] + [(p.pk, p.display_name) for p in self.people]
        for n in range(SIDE_BETS):
            for side, label in (("winner", _("Backs the winner")), ("loser", _("Backs the loser"))):
                self.fields[f"bet_{n}_{side}"] = forms.TypedChoiceField(
                    label=label, choices=everyone, coerce=int, required=False, empty_value=None
                )
            self.fields[f"bet_{n}_quotas"] = forms.IntegerField(
                label=_("Quotas"), required=False, min_value=1
            )

    # --- Layout helpers for the template

    def cover_fields(self):
        """The covers, the opponent's first (the order the quotas are covered in)."""
        chosen = self.data.get("opponent") if self.is_bound else self.initial.get("opponent")
        opponent = str(getattr(chosen, "pk", chosen) or "")
        people = sorted(self.people, key=lambda p: str(p.pk) != opponent)
        return [(p, self[f"cover_{p.pk}"]) for p in people]

    def bet_rows(self):
        return [
            (self[f"bet_{n}_winner"], self[f"bet_{n}_loser"], self[f"bet_{n}_quotas"])
            for n in range(SIDE_BETS)
        ]

    def bets_open(self) -> bool:
        """Whether the side bets' section shows opened: one is filled in or has an error."""
        names = [f"bet_{n}_{part}" for n in range(SIDE_BETS) for part in BET_PARTS]
        return any(self.errors.get(name) or self.data.get(name) for name in names)

    # --- The payload in the API's terms

    def clean(self):
        data = super().clean()
        for n in range(SIDE_BETS):
            parts = [data.get(f"bet_{n}_{k}") for k in ("winner", "loser", "quotas")]
            if any(p is not None for p in parts) and not all(p is not None for p in parts):
                self.add_error(
                    f"bet_{n}_quotas",
                    _("A side bet names who backs the winner, who backs the loser, and quotas."),
                )
        return data

    def payload(self) -> dict:
        data = self.cleaned_data
        return HandPayload(
            winner=data["winner"],
            winner_cards=card_tokens(data["winner_cards"]),
            loser_cards=card_tokens(data["loser_cards"]),
            melds=meld_lists(data.get("melds", "")),
            dealer_quotas=data["dealer_quotas"],
            covers={p.pk: data[f"cover_{p.pk}"] for p in self.people if data.get(f"cover_{p.pk}")},
            side_bets=[
                (data[f"bet_{n}_winner"], data[f"bet_{n}_loser"], data[f"bet_{n}_quotas"])
                for n in range(SIDE_BETS)
                if data.get(f"bet_{n}_quotas")
            ],
        ).as_dict()

    # --- A service's refusal shown on the form

    def form_field(self, at: str | None) -> str | None:
        """The form field an API field name (``covers.12``, ``side_bets[0].quotas``) is."""
        if not at:
            return None
        if at.startswith("covers."):
            name = f"cover_{at.split('.', 1)[1]}"
            return name if name in self.fields else None
        match = re.match(r"side_bets\[(\d+)\](?:\.(\w+))?", at)
        if match:
            n, part = match.groups()
            part = {"backer_of_winner": "winner", "backer_of_loser": "loser"}.get(part, "quotas")
            name = f"bet_{n}_{part}"
            return name if name in self.fields else None
        head = re.split(r"[\[.]", at)[0]
        return head if head in self.fields else None

    def add_refusal(self, error: ValidationError) -> None:
        """A service's refusal, each message a sentence by the field it is about (never the
        API's field path: ``covers``, ``side_bets[0]``); the covers as a whole by their
        section (``cover_errors``)."""
        if isinstance(error, HandRefused):
            for item in error.rules_errors:
                if about_cards(item):
                    continue  # shown next to the offending card (see card_errors)
                self._add_at(item.get("at"), [page_message(item)])
            return
        if hasattr(error, "error_dict"):
            for at, messages in error.message_dict.items():
                self._add_at(at, messages)
        else:
            self.add_error(None, error.messages)

    def _add_at(self, at: str | None, messages: list[str]) -> None:
        name = self.form_field(at)
        if name is None and (at or "").split("[")[0].split(".")[0] == "covers":
            self.cover_errors.extend(messages)
        elif name is None and (at or "").startswith("side_bets"):
            self.add_error("bet_0_quotas", messages)
        else:
            self.add_error(name, messages)


# The engine's ``bad_stake`` refusals as a page says them next to the field, by what its
# (English) message says is wrong: the API keeps the engine's message and its ``at``.
STAKE_SENTENCES = [
    ("must be two people", _("The dealer and the opponent must be two different people.")),
    ("neither the dealer nor", _("The winner must be the dealer or the opponent.")),
    ("cannot cover", _("The dealer cannot cover their own quotas.")),
    ("exceed the dealer", _("The covers add up to more quotas than the dealer staked.")),
    ("on both sides", _("A side bet needs two different people, one on each side.")),
    ("plays the hand", _("A side bet is between bystanders, not the two who play the hand.")),
]


def page_message(item: dict) -> str:
    """An engine error as the hand page shows it, next to its field: a sentence, without
    the API's field path (``covers``, ``side_bets[0]``)."""
    if item.get("code") == "bad_stake":
        message = str(item.get("message_en") or "")
        for words, sentence in STAKE_SENTENCES:
            if words in message:
                return str(sentence)
        if "quotas, not" in message:
            most = formats.number_format(QUOTA_MAX, force_grouping=True)
            return str(_("From 1 to %(most)s quotas.") % {"most": most})
    return item.get("short") or item["message"]


CARD_CODES = {"unknown_card", "hand_size", "too_many_copies", "not_closed", "same_suit_sequences"}


def about_cards(item: dict) -> bool:
    """Whether an engine error is about the cards or the melds (shown by the cards)."""
    at = item.get("at") or ""
    return item.get("code") in CARD_CODES or at.startswith("melds")


def card_errors(form: HandForm, error: HandRefused | None) -> dict:
    """The engine's errors by card, for the template: for each card field, its tokens and
    the message next to each offending one (``too_many_copies`` marks every copy)."""
    fields = {}
    for name in ("winner_cards", "loser_cards"):
        tokens = card_tokens(form.data.get(name, ""))
        fields[name] = {"tokens": [{"card": t, "error": ""} for t in tokens], "errors": []}
    if error is None:
        return fields
    for item in error.rules_errors:
        if not about_cards(item):
            continue
        at = item.get("at") or ""
        match = re.match(r"(winner_cards|loser_cards)\[(\d+)\]", at)
        if match:
            name, index = match.group(1), int(match.group(2))
            tokens = fields[name]["tokens"]
            if index < len(tokens):
                tokens[index]["error"] = item.get("short", item["message"])  # by the card
                continue
        if item.get("code") == "too_many_copies":
            marked = False
            for name in fields:
                for token in fields[name]["tokens"]:
                    if _same_card(token["card"], at):
                        token["error"] = item.get("short", item["message"])
                        marked = True
            if marked:
                fields["winner_cards"]["errors"].append(item["message"])
                continue
        where = "loser_cards" if at.startswith("loser_cards") else "winner_cards"
        if at.startswith("melds"):
            continue
        fields[where]["errors"].append(item["message"])
    return fields


def meld_errors(error: HandRefused | None) -> list[str]:
    if error is None:
        return []
    return [e["message"] for e in error.rules_errors if (e.get("at") or "").startswith("melds")]


def _same_card(token: str, card: str) -> bool:

    try:
        return str(Card.parse(token)) == card
    except (ValueError, TypeError):
        return False
