"""The Italian and English catalogues: complete, compiled, current, and used by the site.

The .po files are parsed by hand (no polib): msgfmt-compatible for what makemessages writes.
"""

import re
import shutil
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
LANGUAGES = ["it", "en"]

# Msgids whose Italian is legitimately the English word.
SAME_IN_ITALIAN = {"API", "E-mail", "e-mail", "Link", "Password", "Singapore", "Sputo", "no"}
# A word both languages share; a table named with its day ("Tavolo verde, venerdì 4 dicembre 2026").
SAME_IN_ITALIAN |= {"Quintuple", "%(table)s, %(date)s"}
# Web words Italian takes as they are.
SAME_IN_ITALIAN |= {"URL", "webhook"}

# Translations other tests (and people's habits) rely on.
FIXED_ITALIAN = {
    "Your clubs": "I tuoi circoli",
    "Seasons": "Stagioni",
    "Guests": "Ospiti",
    "Members": "Membri",
    "Log in": "Accedi",
    "Log out": "Esci",
    "Too many failed logins": "Troppi accessi non riusciti",
}

# The extraction of the repository's `makemessages` (see scripts/fill_english_catalogue.py).
MAKEMESSAGES_IGNORES = [".venv/*", "benchmarks/*", "tests/*", "rules/*"]


# --- A small .po reader ----------------------------------------------------------------

_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
_KEYWORD = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+\"(.*)\"\s*$")
_CHUNK = re.compile(r"^\"(.*)\"\s*$")
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|\{\w+\}")


def _unescape(text: str) -> str:
    def one(match: re.Match) -> str:
        code = match.group(1)
        if code in _ESCAPES:
            return _ESCAPES[code]
        raise ValueError(f"unknown escape \\{code} in {text!r}")

    return re.sub(r"\\(.)", one, text)


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)  # -1: singular
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False
    line: int = 0

    @property
    def label(self) -> str:
        return f"line {self.line}: {self.msgid!r}"

    @property
    def translations(self) -> list[str]:
        return [self.msgstr[i] for i in sorted(self.msgstr)]


def read_po(path: Path) -> list[Entry]:
    """Every entry of a .po file, the header included (msgid "")."""
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int] | None = None
    seen_string = False

    def new(number: int) -> Entry:
        nonlocal entry, target, seen_string
        entry, target, seen_string = Entry(line=number), None, False
        entries.append(entry)
        return entry

    def append(current: Entry, where: tuple[str, int], text: str) -> None:
        name, index = where
        if name == "msgstr":
            current.msgstr[index] = current.msgstr.get(index, "") + text
        else:
            setattr(current, name, (getattr(current, name) or "") + text)

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            entry, target, seen_string = None, None, False
            continue
        if line.startswith("#"):
            if entry is None or seen_string:
                new(number)
            assert entry is not None
            if line.startswith("#,"):
                entry.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            elif line.startswith("#~"):
                entry.obsolete = True
            continue
        match = _KEYWORD.match(line)
        if match:
            keyword, index, text = match.groups()
            starts_entry = keyword in ("msgctxt", "msgid")
            if entry is None or (
                starts_entry
                and seen_string
                and not (keyword == "msgid" and target == ("msgctxt", 0))
            ):
                new(number)
            assert entry is not None
            seen_string = True
            if keyword.startswith("msgstr"):
                target = ("msgstr", int(index) if index is not None else -1)
                entry.msgstr[target[1]] = ""
            else:
                target = (keyword, 0)
                setattr(entry, keyword, "")
            append(entry, target, _unescape(text))
            continue
        match = _CHUNK.match(line)
        if match and entry is not None and target is not None:
            append(entry, target, _unescape(match.group(1)))
            continue
        raise AssertionError(f"{path}:{number}: cannot parse {raw!r}")
    return entries


def live_entries(language: str) -> list[Entry]:
    """The entries that matter: not the header, not obsolete."""
    return [e for e in read_po(po_path(language)) if e.msgid and not e.obsolete]


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


def compile_po(entries: list[Entry]) -> dict[bytes, bytes]:
    """What msgfmt puts in the .mo: translated, non-fuzzy entries, keyed as GNU gettext does."""
    catalog: dict[bytes, bytes] = {}
    for e in entries:
        if e.obsolete or "fuzzy" in e.flags or not all(e.translations) or not e.msgstr:
            continue
        key = e.msgid if e.msgid_plural is None else f"{e.msgid}\0{e.msgid_plural}"
        if e.msgctxt is not None:
            key = f"{e.msgctxt}\x04{key}"
        catalog[key.encode()] = "\0".join(e.translations).encode()
    return catalog


def read_mo(path: Path) -> dict[bytes, bytes]:
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    order = {0x950412DE: "<", 0xDE120495: ">"}[magic]
    _revision, count, originals, translations = struct.unpack(order + "4I", data[4:20])

    def string(table: int, i: int) -> bytes:
        length, offset = struct.unpack(order + "2I", data[table + 8 * i : table + 8 * i + 8])
        return data[offset : offset + length]

    return {string(originals, i): string(translations, i) for i in range(count)}


def _without_pot_date(catalog: dict[bytes, bytes]) -> dict[bytes, bytes]:
    """Recent msgfmt leaves POT-Creation-Date out of the compiled header; older ones keep it."""
    if b"" in catalog:
        lines = catalog[b""].split(b"\n")
        catalog[b""] = b"\n".join(x for x in lines if not x.startswith(b"POT-Creation-Date:"))
    return catalog


# --- The catalogues --------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalogue_has_no_untranslated_or_fuzzy_entries(language):
    entries = read_po(po_path(language))
    header = [e for e in entries if not e.msgid and not e.obsolete]
    assert len(header) == 1 and "fuzzy" not in header[0].flags, "the header is fuzzy"
    live = [e for e in entries if e.msgid and not e.obsolete]
    assert live, f"{po_path(language)} has no messages"
    untranslated = [e.label for e in live if not e.msgstr or not all(e.translations)]
    fuzzy = [e.label for e in live if "fuzzy" in e.flags]
    assert not untranslated, f"untranslated in {language}: {untranslated}"
    assert not fuzzy, f"fuzzy in {language}: {fuzzy}"
    plural = [e.label for e in live if e.msgid_plural is not None and len(e.msgstr) != 2]
    assert not plural, f"entries without both plural forms in {language}: {plural}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_the_placeholders(language):
    wrong = []
    for e in live_entries(language):
        sources = [e.msgid] if e.msgid_plural is None else [e.msgid, e.msgid_plural]
        wanted = sorted(set(_PLACEHOLDER.findall(" ".join(sources))))
        for text in e.translations:
            if sorted(set(_PLACEHOLDER.findall(text))) != wanted:
                wrong.append((e.label, text))
    assert not wrong, f"placeholders changed in {language}: {wrong}"


def test_english_is_the_source_language():
    wrong = []
    for e in live_entries("en"):
        wanted = [e.msgid] if e.msgid_plural is None else [e.msgid, e.msgid_plural]
        if e.translations != wanted:
            wrong.append(e.label)
    assert not wrong, f"run scripts/fill_english_catalogue.py: {wrong}"


def test_italian_and_english_have_the_same_messages():
    def keys(language):
        return {(e.msgctxt, e.msgid, e.msgid_plural) for e in live_entries(language)}

    assert keys("it") == keys("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_compiled_catalogue_is_up_to_date(language):
    mo = po_path(language).with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run `manage.py compilemessages --ignore '.venv/*'`"
    expected = _without_pot_date(compile_po(read_po(po_path(language))))
    compiled = _without_pot_date(read_mo(mo))
    stale = sorted(
        k for k in expected.keys() | compiled.keys() if expected.get(k) != compiled.get(k)
    )
    assert not stale, (
        f"{mo} does not match its .po (run `manage.py compilemessages --ignore '.venv/*'`): "
        f"{[k.decode()[:60] for k in stale]}"
    )


def test_django_translates_every_message_into_italian():
    untranslated = []
    with translation.override("it"):
        for e in live_entries("it"):
            if e.msgid in SAME_IN_ITALIAN:
                continue
            if e.msgid_plural is None:
                got = (
                    translation.pgettext(e.msgctxt, e.msgid)
                    if e.msgctxt
                    else translation.gettext(e.msgid)
                )
                if got == e.msgid:
                    untranslated.append(e.label)
            else:
                for n in (1, 2):
                    source = e.msgid if n == 1 else e.msgid_plural
                    if translation.ngettext(e.msgid, e.msgid_plural, n) == source:
                        untranslated.append(e.label)
    assert not untranslated, f"Django does not translate into Italian: {untranslated}"


def test_english_catalogue_is_loaded_and_is_the_identity():
    with translation.override("en"):
        for e in live_entries("en"):
            if e.msgid_plural is None and e.msgctxt is None:
                assert translation.gettext(e.msgid) == e.msgid


@pytest.mark.parametrize("msgid, italian", sorted(FIXED_ITALIAN.items()))
def test_fixed_italian_translations(msgid, italian):
    with translation.override("it"):
        assert translation.gettext(msgid) == italian


def test_languages_are_italian_first_then_english():
    assert settings.LANGUAGE_CODE == "it"
    assert [code for code, _name in settings.LANGUAGES] == LANGUAGES


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext is not installed")
def test_catalogues_hold_every_message_of_the_source(tmp_path):
    """makemessages, run on a copy of the project, finds no msgid the catalogues lack."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy2(ROOT / "manage.py", project / "manage.py")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "locale", "staticfiles")
    for app in ("circolo", "plumbing", "clubs", "matches", "ledger", "rules"):
        if (ROOT / app).is_dir():
            shutil.copytree(ROOT / app, project / app, ignore=skip)
    (project / "locale").mkdir()
    command = [sys.executable, "manage.py", "makemessages", "-l", "it", "--no-location"]
    for pattern in MAKEMESSAGES_IGNORES:
        command += ["--ignore", pattern]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    fresh_po = project / "locale" / "it" / "LC_MESSAGES" / "django.po"
    assert fresh_po.exists(), f"makemessages wrote elsewhere: {result.stdout} {result.stderr}"

    def keys(entries):
        return {(e.msgctxt, e.msgid, e.msgid_plural) for e in entries if e.msgid and not e.obsolete}

    in_source = keys(read_po(fresh_po))
    in_catalogue = keys(live_entries("it"))
    hint = "run makemessages (see scripts/fill_english_catalogue.py), translate, compile"
    assert not in_source - in_catalogue, f"missing from the catalogues ({hint}): " + repr(
        sorted(m for _c, m, _p in in_source - in_catalogue)
    )
    assert not in_catalogue - in_source, f"no longer in the source ({hint}): " + repr(
        sorted(m for _c, m, _p in in_catalogue - in_source)
    )


# --- The site --------------------------------------------------------------------------


@pytest.mark.django_db
def test_home_page_is_italian_by_default(client):
    response = client.get("/")
    assert response.status_code == 200
    assert '<html lang="it">' in response.text
    assert "Circoli pubblici" in response.text


@pytest.mark.django_db
@pytest.mark.parametrize(
    "accept, lang, text, absent",
    [
        ("it-IT,it;q=0.9,en;q=0.8", "it", "Circoli pubblici", "Public clubs"),
        ("it", "it", "Accedi", "Log in"),
        ("en", "en", "Public clubs", "Circoli pubblici"),
        ("en-GB,en;q=0.9", "en", "Log in", "Accedi"),
        ("fr-FR,fr;q=0.9", "it", "Circoli pubblici", "Public clubs"),
    ],
)
def test_home_page_follows_the_browser_language(client, accept, lang, text, absent):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 200
    assert f'<html lang="{lang}">' in response.text
    assert text in response.text
    assert absent not in response.text


@pytest.mark.django_db
def test_language_switcher_switches(client):
    english = "en-GB,en;q=0.9"
    assert '<html lang="en">' in client.get("/", HTTP_ACCEPT_LANGUAGE=english).text

    response = client.post(
        "/i18n/setlang/", {"language": "it", "next": "/"}, HTTP_ACCEPT_LANGUAGE=english
    )
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "it"
    page = client.get("/", HTTP_ACCEPT_LANGUAGE=english)
    assert '<html lang="it">' in page.text
    assert "Circoli pubblici" in page.text

    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="it")
    assert '<html lang="en">' in page.text
    assert "Public clubs" in page.text
