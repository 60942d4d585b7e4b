"""House rules versions as people read them: what each version changed, in words.

Each rule is named by its label on the settings form and each value by the form's words
for it (a choice's label, yes or no, a number in the page's language), never by the keys
and values stored in the JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.utils import formats
from django.utils.translation import gettext as _

from clubs.forms import HOUSE_RULE_FORMS
from clubs.models import Club, HouseRuleSet
from clubs.names import name_in_club, names_of
from rules.house_rules import as_dict, parse_house_rules

SHOWN_VERSIONS = 10


@dataclass(frozen=True)
class Change:
    rule: str
    before: str
    after: str


@dataclass(frozen=True)
class Version:
    version: HouseRuleSet
    is_current: bool
    changes: list[Change]
    from_defaults: bool  # the first version: its changes are from the game's defaults
    older_unknown: bool  # the version before it is beyond the list: no changes to show
    by: str = ""  # who saved it, by the name they go by in the club ("" if unknown)


def _words(field: forms.Field | None, value: object) -> str:
    if value is None:
        return _("none")
    if isinstance(field, forms.BooleanField) or isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(field, forms.ChoiceField):
        return str(dict(field.choices).get(value, value))
    if isinstance(value, int):
        return formats.number_format(value, force_grouping=True)
    return str(value)


def changes(game: str, before: dict, after: dict) -> list[Change]:
    """What differs between two sets of ``game``'s rules, in the order of the form."""
    fields = HOUSE_RULE_FORMS[game].base_fields if game in HOUSE_RULE_FORMS else {}
    names = [name for name in fields if name in before or name in after]
    names += sorted((set(before) | set(after)) - set(names))
    found = []
    for name in names:
        if before.get(name) != after.get(name):
            field = fields.get(name)
            found.append(
                Change(
                    rule=str(field.label) if field is not None else name,
                    before=_words(field, before.get(name)),
                    after=_words(field, after.get(name)),
                )
            )
    return found


def history(club: Club, game: str) -> list[Version]:
    """The club's latest versions of ``game``'s rules, newest first, each with what it
    changed from the one before (the first: from the defaults). One query."""
    versions = list(
        club.house_rule_sets.filter(game=game)
        .select_related("created_by")
        .order_by("-version")[: SHOWN_VERSIONS + 1]
    )
    defaults = as_dict(parse_house_rules(game, None))
    names = names_of(club.pk, {v.created_by_id for v in versions if v.created_by_id})
    shown = []
    for i, version in enumerate(versions[:SHOWN_VERSIONS]):
        older = versions[i + 1] if i + 1 < len(versions) else None
        first = version.version == 1
        before = older.rules if older is not None else (defaults if first else None)
        shown.append(
            Version(
                version=version,
                is_current=i == 0,
                changes=changes(game, before, version.rules) if before is not None else [],
                from_defaults=first,
                older_unknown=before is None,
                by=name_in_club(club.pk, version.created_by, names) if version.created_by else "",
            )
        )
    return shown
