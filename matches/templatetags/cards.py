"""Cards as people read them: a chip shows ``A♠``, ``10♥``, the joker by its name, in both
languages. Only the shown text changes: the codes typed or pasted (``AS``, ``10h``) stay
as they are in the fields and in ``data-card``."""

from django import template
from django.utils.translation import gettext

from rules.cards import Card
from rules.errors import RulesError

register = template.Library()

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@register.filter
def suited(token) -> str:
    """``"QH"`` -> ``"Q♥"``, ``"JK"`` -> the joker's name; a token that is not a card (a
    typo the form points at) is shown as it was typed."""
    try:
        card = Card.parse(str(token))
    except (RulesError, ValueError):
        return str(token)
    if card.is_joker:
        return gettext("Joker")
    code = str(card)
    return code[:-1] + SUIT_SYMBOLS[code[-1]]
