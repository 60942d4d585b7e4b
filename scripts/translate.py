#!/usr/bin/env python3
"""Show or fill the Italian catalogue's missing translations.

    python scripts/translate.py                 # list untranslated and fuzzy entries as JSON
    python scripts/translate.py FILE.json       # apply {"msgid": "msgstr", ...} and un-fuzz them

For a plural entry give a list: ``{"%(n)s game": ["%(n)s partita", "%(n)s partite"]}``; for
an entry with a context, key it as ``"context\\x04msgid"``. Then ``make messages`` compiles.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import polib

PO = Path(__file__).resolve().parent.parent / "locale" / "it" / "LC_MESSAGES" / "django.po"


def key(entry: polib.POEntry) -> str:
    return f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt else entry.msgid


def missing(po: polib.POFile) -> dict[str, object]:
    out: dict[str, object] = {}
    for entry in po:
        if entry.obsolete:
            continue
        empty = not entry.msgstr and not any(entry.msgstr_plural.values())
        if empty or "fuzzy" in entry.flags:
            out[key(entry)] = list(entry.msgstr_plural.values()) if entry.msgid_plural else ""
    return out


def main(argv: list[str]) -> int:
    po = polib.pofile(str(PO), wrapwidth=79)
    if len(argv) < 2:
        print(json.dumps(missing(po), ensure_ascii=False, indent=1))
        return 0
    translations = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    done = 0
    for entry in po:
        if key(entry) not in translations:
            continue
        value = translations[key(entry)]
        if entry.msgid_plural:
            entry.msgstr_plural = dict(enumerate(value))
        else:
            entry.msgstr = value
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
        done += 1
    po.save()
    left = missing(po)
    print(f"{done} translated; {len(left)} still missing")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
