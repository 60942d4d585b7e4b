#!/usr/bin/env python3
"""Fill the English catalogue: English is the source language, so every msgstr is its msgid.

Run it after every ``makemessages`` (from the repository root, any Python 3.11+)::

    python manage.py makemessages -l it -l en --ignore '.venv/*' --ignore 'benchmarks/*' \\
        --ignore 'tests/*' --ignore 'rules/*'
    python scripts/fill_english_catalogue.py
    python manage.py compilemessages --ignore '.venv/*'

For each entry it sets ``msgstr`` to ``msgid`` (for plurals ``msgstr[0]`` to ``msgid`` and
every other ``msgstr[n]`` to ``msgid_plural``), drops the ``fuzzy`` flag and the ``#|``
previous-msgid comments ``msgmerge`` leaves on fuzzy matches, and un-fuzzies the header
(setting ``Language: en``). Strings are copied exactly as written in the file, escapes and
line wrapping included, so multi-line strings stay as they were. Obsolete (``#~``) entries
are left alone. Running it twice changes nothing the second time.

Pure standard library on purpose: it needs neither polib nor the gettext tools.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PO = Path(__file__).resolve().parent.parent / "locale" / "en" / "LC_MESSAGES" / "django.po"

_KEYWORD = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")\s*$")
_CHUNK = re.compile(r"^(\".*\")\s*$")


class PoSyntaxError(ValueError):
    pass


@dataclass
class Entry:
    """One catalogue entry; strings are kept as their quoted source lines (escapes intact)."""

    comments: list[str] = field(default_factory=list)  # every "#" line, in order
    msgctxt: list[str] | None = None
    msgid: list[str] = field(default_factory=list)
    msgid_plural: list[str] | None = None
    msgstr: dict[int, list[str]] = field(default_factory=dict)  # index -> chunks; -1: singular

    @property
    def obsolete(self) -> bool:
        return not self.msgid and any(c.startswith("#~") for c in self.comments)

    @property
    def is_header(self) -> bool:
        return self.msgctxt is None and self.msgid == ['""']

    def flags(self) -> list[str]:
        out: list[str] = []
        for comment in self.comments:
            if comment.startswith("#,"):
                out += [f.strip() for f in comment[2:].split(",") if f.strip()]
        return out

    def set_flags(self, flags: list[str]) -> None:
        kept = [c for c in self.comments if not c.startswith("#,")]
        if flags:
            # Flags go after the other comments (reference lines), where msgmerge puts them.
            at = len(kept)
            while at and kept[at - 1].startswith("#|"):
                at -= 1
            kept.insert(at, "#, " + ", ".join(flags))
        self.comments = kept

    def lines(self) -> list[str]:
        out = list(self.comments)
        if self.obsolete:
            return out
        for keyword, chunks in (
            ("msgctxt", self.msgctxt),
            ("msgid", self.msgid),
            ("msgid_plural", self.msgid_plural),
        ):
            if chunks is not None:
                out += _emit(keyword, chunks)
        for index in sorted(self.msgstr):
            keyword = "msgstr" if index == -1 else f"msgstr[{index}]"
            out += _emit(keyword, self.msgstr[index])
        return out


def _emit(keyword: str, chunks: list[str]) -> list[str]:
    return [f"{keyword} {chunks[0]}", *chunks[1:]]


def parse(text: str) -> list[Entry]:
    """Split a .po file into entries (blank lines separate them)."""
    entries: list[Entry] = []
    entry = Entry()
    current: list[str] | None = None  # the chunk list continuation lines extend

    def finish() -> None:
        nonlocal entry, current
        if entry.comments or entry.msgid or entry.msgstr:
            if not entry.obsolete and not entry.msgid:
                raise PoSyntaxError(f"entry without msgid: {entry.lines()[:3]}")
            entries.append(entry)
        entry, current = Entry(), None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#"):
            if entry.msgid or entry.msgstr:  # a comment after the strings starts a new entry
                finish()
            entry.comments.append(line)
            current = None
            continue
        match = _KEYWORD.match(line)
        if match:
            keyword, index, chunk = match.groups()
            if keyword == "msgctxt" and (entry.msgid or entry.msgstr):
                finish()
            chunks = [chunk]
            if keyword == "msgctxt":
                entry.msgctxt = chunks
            elif keyword == "msgid":
                if entry.msgid:
                    finish()
                entry.msgid = chunks
            elif keyword == "msgid_plural":
                entry.msgid_plural = chunks
            else:
                entry.msgstr[int(index) if index is not None else -1] = chunks
            current = chunks
            continue
        match = _CHUNK.match(line)
        if match and current is not None:
            current.append(match.group(1))
            continue
        raise PoSyntaxError(f"line {number}: cannot parse {raw!r}")
    finish()
    return entries


def render(entries: list[Entry]) -> str:
    return "\n\n".join("\n".join(e.lines()) for e in entries) + "\n"


def _set_header_field(chunks: list[str], name: str, value: str) -> list[str]:
    wanted = f'"{name}: {value}\\n"'
    out = [wanted if c.startswith(f'"{name}:') else c for c in chunks]
    if wanted not in out:
        out.append(wanted)
    return out


def fill(entries: list[Entry], language: str = "en") -> int:
    """Make every live entry translated by itself; return how many entries changed."""
    changed = 0
    for entry in entries:
        if entry.obsolete:
            continue
        before = entry.lines()
        entry.set_flags([f for f in entry.flags() if f != "fuzzy"])
        entry.comments = [c for c in entry.comments if not c.startswith("#|")]
        if entry.is_header:
            entry.msgstr[-1] = _set_header_field(entry.msgstr.get(-1, ['""']), "Language", language)
        elif entry.msgid_plural is None:
            entry.msgstr = {-1: list(entry.msgid)}
        else:
            count = max(2, len([i for i in entry.msgstr if i >= 0]))
            entry.msgstr = {
                i: list(entry.msgid if i == 0 else entry.msgid_plural) for i in range(count)
            }
        changed += entry.lines() != before
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "po",
        nargs="?",
        type=Path,
        default=DEFAULT_PO,
        help=f"the catalogue to fill (default: {DEFAULT_PO})",
    )
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if the file would change"
    )
    args = parser.parse_args(argv)
    text = args.po.read_text(encoding="utf-8")
    entries = parse(text)
    changed = fill(entries)
    output = render(entries)
    if args.check:
        if output != text:
            print(f"{args.po}: {changed} entries to fill", file=sys.stderr)
            return 1
        return 0
    if output != text:
        args.po.write_text(output, encoding="utf-8")
    print(f"{args.po}: {changed} entries filled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
