"""Tests' stand-ins for what the apps lend the floors below them (``plumbing.parts``)."""

from django.apps import apps


def only_parts(monkeypatch, name: str, parts: tuple) -> None:
    """For one test, ``parts`` are the only ``name`` parts of any app (the clubs app's)."""
    for config in apps.get_app_configs():
        if hasattr(config, name):
            monkeypatch.setattr(config, name, ())
    monkeypatch.setattr(apps.get_app_config("clubs"), name, parts, raising=False)


def with_games(monkeypatch, *games) -> None:
    """For one test, the house's games are ``games`` (``matches.games.all()``)."""
    monkeypatch.setattr(apps.get_app_config("matches"), "games", tuple(games))
