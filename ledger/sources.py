"""What a posting came from, for statements: describers of ``source`` labels.

A transaction's ``source`` is an opaque label set by the caller, ``"<prefix>:<id>"`` (the
Singapore feature posts hands as ``"hand:42"``). The ledger knows no games: the floor that
owns a prefix lends a describer for it from its app's config (``plumbing.parts``)::

    def describe_hands(club, ids):  # ids: the labels' parts after "hand:", as strings
        return {str(h.pk): Source(_("Hand %(n)s") % {"n": h.pk}, h.get_absolute_url())
                for h in Hand.objects.filter(club=club, pk__in=ids)}

    class MatchesConfig(AppConfig):
        def ready(self):
            self.ledger_sources = (("hand", describe_hands),)

A describer is called with the ids of its prefix (a few hundred at a time); a label
without a describer (or that the describer leaves out) is shown as it is.

The same floor may lend a provider of legs (``ledger_legs``) for the transactions it
posted before the ledger kept legs: ``provider(transactions)`` returns, by transaction id,
the debts each one was made of, ``[(debtor id, creditor id, amount in its unit)]``,
recomputed from its own records (``ledger.legs`` checks that they net to the entries).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from clubs.models import Club
from plumbing.parts import parts


@dataclass(frozen=True)
class Source:
    text: str
    url: str | None = None


Describer = Callable[[Club, list[str]], dict[str, Source]]
LegsProvider = Callable[[list], dict[int, list[tuple[int, int, object]]]]

CHUNK = 500  # ids a describer is asked about at once (SQLite bounds a query's parameters)


def describers() -> dict[str, Describer]:
    """The apps' describers of source labels, by prefix (``ledger_sources``)."""
    return dict(parts("ledger_sources"))


def legs_providers() -> dict[str, LegsProvider]:
    """The apps' providers of older postings' legs, by prefix (``ledger_legs``)."""
    return dict(parts("ledger_legs"))


def legs_from_records(prefix: str, transactions: list) -> dict[int, list[tuple[int, int, object]]]:
    """The legs ``prefix``'s provider finds for ``transactions`` (none without a provider)."""
    provider = legs_providers().get(prefix)
    return provider(transactions) if provider else {}


def describe(club: Club, labels: Iterable[str]) -> dict[str, Source]:
    """Each label's description (the label itself where nobody describes it)."""
    known = describers()
    wanted: dict[str, list[str]] = defaultdict(list)
    found: dict[str, Source] = {}
    for label in set(labels):
        if not label:
            continue
        prefix, _, rest = label.partition(":")
        if prefix in known and rest:
            wanted[prefix].append(rest)
        else:
            found[label] = Source(label)
    for prefix, ids in wanted.items():
        ids.sort()
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            described = known[prefix](club, chunk)
            for rest in chunk:
                found[f"{prefix}:{rest}"] = described.get(rest) or Source(f"{prefix}:{rest}")
    return found
