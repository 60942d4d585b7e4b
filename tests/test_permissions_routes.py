"""Every route of the site is in a permission table (``tests/test_permissions_*.py``)."""

import copy
import importlib
import pkgutil
from string import Formatter

from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver, resolve

import tests
from tests.permission_matrix import fill

# Routes tested by a test of their own rather than a table row.
TESTED_APART = {
    # test_permissions_clubs.test_the_token_endpoint_gives_a_token_for_right_credentials_only
    "api-token",
}


def table_modules():
    for module in pkgutil.iter_modules(tests.__path__):
        if module.name.startswith("test_permissions_") and module.name != __name__.split(".")[-1]:
            yield importlib.import_module(f"tests.{module.name}")


def _route_names(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            namespace = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            if pattern.namespace == "admin":
                yield "admin:index"
                continue
            yield from _route_names(pattern.url_patterns, namespace)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{prefix}{pattern.name}"


def with_any_ids(club, path):
    """The club with a stand-in id for each placeholder a feature's own world fills
    (``extend_world``): resolving a path needs its shape, not a real object."""
    known = {"slug", "other", "invitation", "token", "guest", "spare", "season"}
    extra = {
        name: 1
        for _text, name, _spec, _conv in Formatter().parse(path)
        if name and name not in known
    }
    club = copy.copy(club)
    club.extra = {**extra, **club.extra}
    return club


def test_the_tables_cover_every_route(world):
    everything = set(_route_names(get_resolver().url_patterns))
    covered = set(TESTED_APART)
    modules = list(table_modules())
    assert len(modules) >= 2, modules
    for module in modules:  # the objects a feature's paths name ("{payment}")
        extend = getattr(module, "extend_world", None)
        if extend is not None:
            extend(world)
    for module in modules:
        for _name, _method, path, _body, _public, _private in module.ROUTES:
            url = fill(path.split("?")[0], with_any_ids(world["clubs"]["public"], path))
            covered.add(resolve(url).view_name)
    assert everything - covered == set()


def test_every_role_in_the_tables_is_a_real_user(world):
    User = get_user_model()
    for role, user in world["users"].items():
        assert (user is None) == (role == "anonymous")
        if user is not None:
            assert User.objects.filter(pk=user.pk).exists()
    assert world["clubs"]["public"].club.is_public
    assert not world["clubs"]["private"].club.is_public
