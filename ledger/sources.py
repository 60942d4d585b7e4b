"""What a posting came from, for statements: describers of ``source`` labels.

A transaction's ``source`` is an opaque label set by the caller, ``"<prefix>:<id>"`` (the
Singapore feature posts hands as ``"hand:42"``). The ledger knows no games: the floor that
owns a prefix registers a describer for it, usually in its ``AppConfig.ready()``::

    from ledger.sources import Source, register

    def describe_hands(club, ids):  # ids: the labels' parts after "hand:", as strings
        return {str(h.pk): Source(_("Hand %(n)s") % {"n": h.pk}, h.get_absolute_url())
                for h in Hand.objects.filter(club=club, pk__in=ids)}

    register("hand", describe_hands)

A describer is called once per statement with every id of its prefix; a label without a
describer (or that the describer leaves out) is shown as it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from clubs.models import Club


@dataclass(frozen=True)
class Source:
    text: str
    url: str | None = None


Describer = Callable[[Club, list[str]], dict[str, Source]]

_describers: dict[str, Describer] = {}


def register(prefix: str, describer: Describer) -> None:
    """Describe the labels ``"<prefix>:<id>"`` with ``describer(club, ids)``."""
    if not prefix or ":" in prefix:
        raise ValueError(f"a source prefix is a word without colons: {prefix!r}")
    _describers[prefix] = describer


def describe(club: Club, labels: Iterable[str]) -> dict[str, Source]:
    """Each label's description (the label itself where nobody describes it)."""
    wanted: dict[str, list[str]] = defaultdict(list)
    found: dict[str, Source] = {}
    for label in set(labels):
        if not label:
            continue
        prefix, _, rest = label.partition(":")
        if prefix in _describers and rest:
            wanted[prefix].append(rest)
        else:
            found[label] = Source(label)
    for prefix, ids in wanted.items():
        described = _describers[prefix](club, sorted(ids))
        for rest in ids:
            found[f"{prefix}:{rest}"] = described.get(rest) or Source(f"{prefix}:{rest}")
    return found
