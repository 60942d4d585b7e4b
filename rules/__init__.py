"""Circolo's rules engine: pure Python, no Django.

The names most callers need are re-exported here::

    >>> from rules import Card, check_record
    >>> Card.parse("th")
    Card.parse('10H')
    >>> check_record({"game": "chess"})[0]
    2

The game modules (``rules.singapore``, ``rules.sputo``, ``rules.spazzumazz``) are not
imported by this package's ``__init__``: :func:`check_record` and :func:`check_text`
import :mod:`rules.check` on first use, so that a game module importing ``rules.cards``
never meets a half-initialised package.
"""

from __future__ import annotations

from rules.cards import JOKER, Card, Rank, Suit, deck, decks, format_cards, parse_cards
from rules.errors import (
    ErrorGroup,
    MalformedRecordError,
    RulesError,
    RuleViolation,
    UnknownCardError,
)
from rules.house_rules import (
    HouseRules,
    SingaporeRules,
    SpazzumazzRules,
    SputoRules,
    parse_house_rules,
)

__all__ = [
    "JOKER",
    "Card",
    "ErrorGroup",
    "HouseRules",
    "MalformedRecordError",
    "Rank",
    "RuleViolation",
    "RulesError",
    "SingaporeRules",
    "SpazzumazzRules",
    "SputoRules",
    "Suit",
    "UnknownCardError",
    "check_record",
    "check_text",
    "deck",
    "decks",
    "format_cards",
    "parse_cards",
    "parse_house_rules",
]


def check_record(record: object) -> tuple[int, dict[str, object]]:
    """Check a parsed record: see :func:`rules.check.check_record`."""
    from rules.check import check_record as check  # here: rules.check imports rules

    return check(record)


def check_text(text: str) -> tuple[int, dict[str, object]]:
    """Parse and check a JSON record: see :func:`rules.check.check_text`."""
    from rules.check import check_text as check  # here: rules.check imports rules

    return check(text)
