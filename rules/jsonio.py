"""JSON in and out for the checker: strict parsing, UTF-8 output, JSON Lines.

One place for the JSON library the checker uses (the standard library's ``json``), so
that ``benchmarks/bench_jsonl.py`` measures its I/O floor with exactly the same calls.

>>> loads('{"quotas": 5}')
{'quotas': 5}
>>> loads("NaN")
Traceback (most recent call last):
...
ValueError: NaN is not a JSON value
>>> dumps({"name": "Niccolò"}), dumps({"name": "Niccolò", "odd": "\\ud800"})
('{"name": "Niccolò"}', '{"name": "Niccol\\\\u00f2", "odd": "\\\\ud800"}')
>>> texts(b'{"a": 1}\\r\\n\\n  \\n\\xff\\r{"b": 2}')
['{"a": 1}', None, '{"b": 2}']

Rulings (kept from the checker's first version, see ``rules.__main__``):

* Strict JSON: ``NaN`` and ``Infinity`` are refused, and so (Python's own limit) is an
  integer of more than 4300 digits; nesting deeper than the parser allows is refused too
  (``RecursionError``).
* Output is UTF-8 JSON with non-ASCII characters as they are; a result that holds a
  lone surrogate (valid in a JSON string escape, echoed in a message) is written with
  ASCII escapes instead, so that it is still UTF-8.
* JSON Lines split at ``\\n``, ``\\r\\n`` or ``\\r`` only (a record may hold U+2028
  inside a string); blank lines (white space only, after decoding) are skipped.

Why not a faster library: ``orjson`` parses these records 1.5 to 2.5 times faster, but it
reads an integer beyond 64 bits as a float (a quota of 10**20 would become mistyped
instead of ``bad_stake``), refuses lone surrogates and big integers on output, and would
need a fallback for each; the checker's own work dominates the time anyway.
"""

from __future__ import annotations

import json

__all__ = ["decode", "dumps", "dumps_ascii", "loads", "texts"]


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


# Built once: json.loads and json.dumps with any option build a new decoder or encoder
# on every call, which costs more than parsing a small record.
_DECODE = json.JSONDecoder(parse_constant=_no_constants).decode
_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False, allow_nan=False).encode
_ENCODE_ASCII = json.JSONEncoder(check_circular=False, allow_nan=False).encode


def loads(text: str) -> object:
    """Parse one JSON value; raises ``ValueError`` (or ``RecursionError``) if it is not
    strict JSON. The same as ``json.loads(text, parse_constant=...)``."""
    if text.startswith("\ufeff"):
        # json.loads refuses a byte-order mark inside the text (one before it is removed
        # when the bytes are decoded).
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _DECODE(text)


def dumps(value: object) -> str:
    """``value`` as one line of JSON, non-ASCII characters kept (``ensure_ascii=False``),
    unless it holds a lone surrogate, which only ASCII escapes can carry in UTF-8."""
    text = _ENCODE(value)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _ENCODE_ASCII(value)
    return text


def dumps_ascii(value: object) -> str:
    """``value`` as one line of JSON in ASCII (every non-ASCII character escaped)."""
    return _ENCODE_ASCII(value)


def decode(data: bytes) -> str | None:
    """The UTF-8 text of ``data`` (a leading byte-order mark dropped), or ``None``."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def texts(data: bytes) -> list[str | None]:
    """The non-blank lines of JSON Lines input, in order, decoded; ``None`` stands for a
    line that is not UTF-8 (it gets its ``bad_json`` result)."""
    kept: list[str | None] = []
    for line in data.splitlines():
        text = decode(line)
        if text is None or (text and not text.isspace()):
            kept.append(text)
    return kept
