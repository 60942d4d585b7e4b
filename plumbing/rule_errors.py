"""The rules engine's errors in the user's language, for the pages and the API alike.

``rules/`` knows no Django and speaks English: each error is ``{"code", "message", "at"}``
with a stable ``code`` (``../shared/RULES.md``; ``rules.errors``). Here each code has a
translated sentence, and the specifics the engine names stay: ``at`` (a field path such as
``"winner[3]"``, a card, a player, or an event or turn index) and the cards and quoted
values of the engine's message (``5H``, ``'11H'``, ``'colour'``). A code without a
translation is a failing test (``tests/test_rule_errors.py``).

How a feature uses it:

- a page or a service turning an engine refusal into a form error::

      exit_code, result = check_record(record)
      if exit_code != 0:
          raise rules_validation_error(result["errors"], field="record")

  (a ``RulesError`` raised by the engine works too: ``rules_validation_error(error)``);
  each message is a ``ValidationError`` with the engine's code, shown at ``field``;
- an API view answering a 400 with one object per error::

      raise RulesRejected(result["errors"], field="record")

  whose body is ``{"record": [{"code": "too_low", "message": "...", "at": 4}, ...]}``
  (documented as the ``Error`` schema's rules-engine items); a ``ValidationError`` from
  :func:`rules_validation_error` that reaches the API answers the same objects;
- anything else: :func:`translated` gives the translated dicts, :func:`rule_message` one
  message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions, status

from rules.errors import RulesError

# One sentence per code of RULES.md: what the record gets wrong.
RULE_MESSAGES = {
    # Unusable records (exit 2).
    "bad_json": gettext_lazy("The record is not valid JSON."),
    "unknown_game": gettext_lazy("The record does not name a known game."),
    "bad_record": gettext_lazy("A field is missing or its value is not of the right kind."),
    # Every game.
    "unknown_card": gettext_lazy("This is not a card."),
    "bad_deal": gettext_lazy("The deal is not a valid deal."),
    "after_end": gettext_lazy("The game was already over."),
    "not_finished": gettext_lazy("The game is not finished."),
    # Singapore.
    "hand_size": gettext_lazy("A hand does not have the right number of cards."),
    "too_many_copies": gettext_lazy("A card appears more often than the decks hold it."),
    "not_closed": gettext_lazy("The winner's hand does not close."),
    "same_suit_sequences": gettext_lazy(
        "The hand closes only with two sequences of the same suit, which is not allowed."
    ),
    "bad_meld": gettext_lazy("A declared combination is not valid."),
    "melds_mismatch": gettext_lazy(
        "The declared combinations do not use exactly the winner's cards."
    ),
    "bad_stake": gettext_lazy("The stake is not valid."),
    # Sputo.
    "illegal_play": gettext_lazy("This card cannot be played there."),
    "illegal_flip": gettext_lazy("This flip is not allowed."),
    "illegal_splash": gettext_lazy("This splash is not allowed."),
    "blocked": gettext_lazy("This player may not play during the opponent's splash."),
    # Spazz'u'mazz.
    "out_of_turn": gettext_lazy("A player played out of turn."),
    "not_in_hand": gettext_lazy("The player does not hold this card."),
    "mixed_ranks": gettext_lazy("Cards played together must be of one rank."),
    "too_low": gettext_lazy("The card played is lower than the one on the table."),
    "face_up_not_allowed": gettext_lazy("The face-up cards may not be played yet."),
    "blind_not_allowed": gettext_lazy("The blind cards may not be played yet."),
    "must_play": gettext_lazy("A player picked up the pile while a card could be played."),
}

# The cards (10H, QS, JK, with suit letters or symbols) and the quoted values an engine
# message names: the specifics kept in the translation.
_CARD = r"(?<![\w'])(?:10|[2-9JQKA])[SHDC♠♥♦♣](?![\w'])|(?<![\w'])JK(?![\w'])"
_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
_SPECIFICS = re.compile(f"{_QUOTED}|{_CARD}")


def _parts(error) -> tuple[str, str, object]:
    if isinstance(error, RulesError):
        return error.code, error.message, error.at
    if isinstance(error, Mapping):
        return str(error.get("code", "")), str(error.get("message", "")), error.get("at")
    raise TypeError(f"not a rules-engine error: {error!r}")


def named_in(message: str, *, at: object = None) -> list[str]:
    """The cards and quoted values ``message`` names, in order, once each (``at`` aside).

    >>> named_in("turn 4: 5H is lower than 9S", at=4)
    ['5H', '9S']
    >>> named_in("unknown house rule 'colour' for singapore (known: cap)")
    ["'colour'"]
    """
    found: list[str] = []
    for match in _SPECIFICS.finditer(message):
        token = match.group(0)
        if token not in found and token.strip("'\"") != str(at):
            found.append(token)
    return found


def place(at: object) -> str:
    """Where the error is, for a person: an event or turn index, or the engine's path."""
    if at is None or at == "":
        return ""
    if isinstance(at, int) and not isinstance(at, bool):
        return _("move %(number)s") % {"number": at}
    return str(at)


def rule_message(error) -> str:
    """One engine error (a dict or a ``RulesError``) as a sentence in the active language,
    with where it is and the cards or values it names."""
    code, message, at = _parts(error)
    sentence = RULE_MESSAGES.get(code)
    text = str(sentence) if sentence is not None else _("The record breaks a rule of the game.")
    where, specifics = place(at), named_in(message, at=at)
    if not (where or specifics):
        return text
    # The sentence's full stop goes after what is added to it: "… (at 3): see QH."
    stop = "." if text.endswith(".") else ""
    text = text.removesuffix(".")
    if where:
        text = _("%(message)s (at %(place)s)") % {"message": text, "place": where}
    if specifics:
        text = _("%(message)s: see %(specifics)s") % {
            "message": text,
            "specifics": ", ".join(specifics),
        }
    return text + stop


def _each(errors) -> list:
    if isinstance(errors, RulesError):
        return list(errors.errors)
    if isinstance(errors, Mapping):
        return list(errors.get("errors") or [errors])
    return list(errors)


def translated(errors: Iterable | Mapping | RulesError) -> list[dict]:
    """The engine's errors (a list of dicts, a checker result with ``errors``, or a
    ``RulesError``, an ``ErrorGroup`` giving each of its errors) as
    ``[{"code", "message", "at"}]`` with translated messages."""
    out = []
    for error in _each(errors):
        code, _message, at = _parts(error)
        out.append({"code": code, "message": rule_message(error), "at": at})
    return out


RULES_ERROR = "rules_error"  # the params key that marks a message as the engine's


def rules_validation_error(errors, *, field: str = "record") -> ValidationError:
    """A Django ``ValidationError`` naming ``field``, one translated message per engine
    error, each carrying the engine's code and its ``at`` (in ``params``): a page shows the
    messages; the API (``plumbing.api``) answers each as ``{"code", "message", "at"}``."""
    return ValidationError({field: [rules_error_item(e) for e in translated(errors)]})


def rules_error_item(error: Mapping) -> ValidationError:
    """One engine error already translated (``{"code", "message", "at"}``; ``at`` in the
    caller's terms) as a ``ValidationError`` that keeps its code and ``at``."""
    return restated(
        ValidationError("", code=error["code"], params={RULES_ERROR: True, "at": error["at"]}),
        str(error["message"]),
    )


def is_rules_error(error: ValidationError) -> bool:
    return isinstance(getattr(error, "params", None), dict) and bool(error.params.get(RULES_ERROR))


def message_of(error: ValidationError) -> str:
    """The text of one ``ValidationError`` (its params filled in)."""
    return error.message % error.params if error.params else str(error.message)


def restated(error: ValidationError, text: str) -> ValidationError:
    """``error`` saying ``text`` instead, its code and params kept (a rules-engine error
    keeps its ``at``): for a message that says more, such as which game ("Game 2: ...")."""
    if error.params:
        text = text.replace("%", "%%")  # params fill nothing in: a % stays a %
    return ValidationError(text, code=error.code, params=error.params)


def as_api_item(error: ValidationError) -> dict:
    """A rules-engine ``ValidationError`` as the API answers it: ``{"code", "message", "at"}``."""
    return {"code": error.code, "message": message_of(error), "at": error.params["at"]}


class RulesRejected(exceptions.APIException):
    """A 400 whose body names ``field`` with one ``{"code", "message", "at"}`` object per
    engine error (``at`` stays an integer or null, as the engine gave it)."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, errors, *, field: str = "record"):
        super().__init__()
        self.detail = {field: translated(errors)}


def for_people(error: ValidationError, field: str | None = None) -> list[str]:
    """``error``'s messages as a page shows them, next to their field: an engine error
    without the engine's path (``deal.Anna.stock``, ``loser[8]``: the API keeps it in
    ``at``); a move number stays ("move 4"). ``field``: only that field's messages."""
    if hasattr(error, "error_dict"):
        groups = [error.error_dict.get(field, [])] if field else error.error_dict.values()
        items = [item for group in groups for item in group]
    else:
        items = [] if field else error.error_list
    texts = []
    for item in items:
        text = message_of(item)
        at = item.params.get("at") if is_rules_error(item) else None
        if isinstance(at, str) and at:
            text = text.replace(_("%(message)s (at %(place)s)") % {"message": "", "place": at}, "")
        texts.append(text)
    return texts
