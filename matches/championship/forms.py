"""The championship's forms: its rules (one set of fields per event kind), and the final."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.championship.config import NIGHTS
from matches.championship.models import EventKind
from matches.sputo.models import Format


def _points_text(points: list[int] | None) -> str:
    return ", ".join(str(p) for p in points or [])


class ChampionshipForm(forms.Form):
    """The rules as fields: ``<kind>_counts``, ``<kind>_points`` ("25, 18, 15"),
    ``<kind>_participation``, ``<kind>_min_games`` (nights); then the season's settings.
    :meth:`rules` is the body the service takes (``config.parse`` checks it)."""

    best_of = forms.IntegerField(
        label=_("Best results that count"),
        min_value=1,
        max_value=1000,
        required=False,
        help_text=_("Empty: every result counts."),
    )
    min_events = forms.IntegerField(
        label=_("Events needed to be ranked"), min_value=0, max_value=1000, initial=0
    )
    guests = forms.BooleanField(label=_("Guests are ranked"), required=False, initial=True)

    def __init__(self, *args, rules: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        rules = rules or {"events": {}, "best_of": None, "min_events": 0, "guests": True}
        for kind, label in EventKind.choices:
            given = rules["events"].get(kind)
            self.fields[f"{kind}_counts"] = forms.BooleanField(
                label=_("%(event)s counts") % {"event": label},
                required=False,
                initial=given is not None,
            )
            self.fields[f"{kind}_points"] = forms.CharField(
                label=_("Points by place"),
                required=False,
                max_length=500,
                initial=_points_text((given or {}).get("points") or [25, 18, 15, 12, 10, 8, 6, 4]),
                help_text=_("1st, 2nd, 3rd…, separated by commas."),
            )
            self.fields[f"{kind}_participation"] = forms.IntegerField(
                label=_("Points for taking part"),
                min_value=0,
                max_value=10_000,
                initial=(given or {}).get("participation", 0),
            )
            if kind in NIGHTS:
                self.fields[f"{kind}_min_games"] = forms.IntegerField(
                    label=_("Games to take part in a night"),
                    min_value=0,
                    max_value=1000,
                    initial=(given or {}).get("min_games", 0),
                )
        if not self.is_bound:
            self.initial.update(
                best_of=rules["best_of"], min_events=rules["min_events"], guests=rules["guests"]
            )

    def kinds(self):
        """Each event kind with its bound fields, for the template."""
        for kind, label in EventKind.choices:
            names = ["counts", "points", "participation"] + (
                ["min_games"] if kind in NIGHTS else []
            )
            yield label, [self[f"{kind}_{name}"] for name in names]

    def clean(self):
        cleaned = super().clean()
        for kind in EventKind.values:
            if not cleaned.get(f"{kind}_counts"):
                continue
            text = cleaned.get(f"{kind}_points") or ""
            try:
                cleaned[f"{kind}_points"] = [int(p) for p in text.replace(";", ",").split(",")]
            except ValueError:
                self.add_error(f"{kind}_points", _("Whole numbers separated by commas."))
        return cleaned

    def rules(self) -> dict:
        c = self.cleaned_data
        events = {}
        for kind in EventKind.values:
            if c.get(f"{kind}_counts"):
                events[kind] = {
                    "points": c[f"{kind}_points"],
                    "participation": c[f"{kind}_participation"],
                }
                if kind in NIGHTS:
                    events[kind]["min_games"] = c[f"{kind}_min_games"]
        return {
            "events": events,
            "best_of": c.get("best_of"),
            "min_events": c["min_events"],
            "guests": c["guests"],
        }

    def show_errors(self, errors: dict) -> None:
        """The service's errors by rules field (``events.sputo.points``) on the form's."""
        for where, messages in errors.items():
            name = where.removeprefix("events.").replace(".", "_")
            for message in messages:
                self.add_error(name if name in self.fields else None, message)


class FinalForm(forms.Form):
    top = forms.IntegerField(label=_("Players"), min_value=2, max_value=256, initial=8)
    format = forms.ChoiceField(label=_("Format"), choices=Format.choices)
    name = forms.CharField(label=_("Name"), max_length=120)
