"""The apps use Django through its public API: no module reads or writes the private
caches and state Django keeps on model instances, querysets and fields (they change from
one Django release to the next). A related row comes from ``select_related`` or
``prefetch_related``, a write from ``save(update_fields=...)``, ``update`` or
``bulk_update(fields=...)``, and a row a write changed is read again to be shown."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS = ("plumbing", "clubs", "ledger", "matches", "circolo")

#: Django's private names, as they would appear in the apps' code.
PRIVATE = re.compile(
    r"\b(?:_prefetched_objects_cache|_result_cache|_prefetch_done|_prefetch_related_lookups"
    r"|_known_related_objects|_iterable_class|_sticky_filter|_for_write|fields_cache"
    r"|set_cached_value|get_cached_value|delete_cached_value|is_cached|__dict__)\b"
    r"|\._state\.|\._(?:db|hints|fields)\b"
    r"|\._(?:do_update|do_insert|save_table|save_parents)\b"
    r"|\.query\.(?:where|alias_map|annotations|select_related|get_compiler|add_\w+|set_\w+)"
)


def sources() -> list[Path]:
    return sorted(path for app in APPS for path in (ROOT / app).rglob("*.py"))


def test_the_apps_have_sources_to_look_at():
    assert len(sources()) > 100


@pytest.mark.parametrize(
    "line",
    [
        'row.__dict__.setdefault("_prefetched_objects_cache", {})',
        "found._result_cache, found._prefetch_done = list(rows), True",
        "field.set_cached_value(row, field.get_cached_value(subject))",
        "if not field.is_cached(row):",
        "match._state.fields_cache.clear()",
        "qs.query.add_q(q)",
    ],
)
def test_the_scan_finds_what_it_looks_for(line):
    assert PRIVATE.search(line)


@pytest.mark.parametrize(
    "line",
    [
        'User._meta.get_field("username")',
        "self._state(session).seats",
        'f"?{split.query}" if split.query else ""',
        "matches.select_related(*self.related)",
    ],
)
def test_the_scan_leaves_the_public_api_alone(line):
    assert not PRIVATE.search(line)


def test_no_app_module_touches_djangos_private_caches():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sources()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert found == []
