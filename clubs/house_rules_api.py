"""House rules in the REST API: one operation per game (``clubs/<slug>/house-rules/<game>/``),
its body described from the rules engine's settings type, so the schema and the engine never
disagree. ``ClubViewSet`` (``clubs.api``) takes one action per game from here."""

from __future__ import annotations

import copy
import typing
from dataclasses import MISSING, fields

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.decorators import action
from rest_framework.settings import api_settings

from clubs import services
from clubs.models import Game
from rules.house_rules import RULES_BY_GAME


class RawSchemaSerializer(serializers.Serializer):
    """A serializer only for the OpenAPI schema: ``schema`` is its component as it stands
    (for what DRF fields cannot say, such as ``additionalProperties: false``)."""

    schema: typing.ClassVar[dict] = {}


class RawSchemaExtension(OpenApiSerializerExtension):
    target_class = RawSchemaSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        # A copy each time: drf-spectacular's enum hook rewrites the component in place (an
        # enum becomes a $ref to a component of its own), and the next schema built in this
        # process would find the $ref and no enum to make that component from.
        return copy.deepcopy(self.target.schema)

    def get_name(self, auto_schema, direction):
        target = self.target if isinstance(self.target, type) else type(self.target)
        return target.__name__.removesuffix("Serializer")


def house_rule_schema(game: str) -> dict:
    """A JSON schema of ``game``'s house rules, from the rules engine's settings type: its
    names, types, choices and defaults, with the bounds ``services`` and the engine enforce
    (``tests/test_api_house_rules.py`` checks both agree at every bound)."""
    settings_type = RULES_BY_GAME[game]
    hints = typing.get_type_hints(settings_type)
    properties = {}
    for field in fields(settings_type):
        hint = hints[field.name]
        args = typing.get_args(hint)
        if hint is bool:
            prop: dict = {"type": "boolean"}
        elif typing.get_origin(hint) is typing.Literal:
            prop = {"type": "string", "enum": list(args)}
        elif hint is int or set(args) == {int, type(None)}:
            prop = {
                "type": "integer",
                "minimum": services.HOUSE_RULE_MINIMUMS[field.name],
                "maximum": services.HOUSE_RULE_LIMITS[field.name],
            }
            if type(None) in args:
                prop["nullable"] = True
        else:  # a new kind of house rule: describe it here before it ships
            raise TypeError(f"no schema for house rule {field.name}: {hint}")
        if field.default is not MISSING:
            prop["default"] = field.default
        properties[field.name] = prop
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _house_rules_serializers(game: str):
    name = "".join(part.title() for part in game.split("_"))
    rules = house_rule_schema(game)
    request = type(
        f"{name}HouseRulesInSerializer",
        (RawSchemaSerializer,),
        {
            "schema": {
                "type": "object",
                "description": "New house rules: the rules left out take their defaults.",
                "properties": {"rules": rules},
                "required": ["rules"],
            }
        },
    )
    response = type(
        f"{name}HouseRulesSerializer",
        (RawSchemaSerializer,),
        {
            "schema": {
                "type": "object",
                "properties": {
                    "game": {"type": "string", "enum": [game]},
                    "version": {
                        "type": "integer",
                        "nullable": True,
                        "description": "Null while the club plays by the defaults.",
                    },
                    "rules": {**rules, "required": list(rules["properties"])}
                    if rules["properties"]
                    else rules,
                },
                "required": ["game", "version", "rules"],
            }
        },
    )
    return request, response


def house_rules_action(game: str):
    """GET and PUT ``clubs/<slug>/house-rules/<game>/`` for one game (JSON bodies only: the
    rules are typed values). An unknown game matches no route: a JSON 404."""
    request, response = _house_rules_serializers(game)
    json_only = [p for p in api_settings.DEFAULT_PARSER_CLASSES if "json" in p.media_type]

    def view(self, request, slug=None, format=None):  # noqa: A002 - DRF's format suffix
        return self.house_rules(request, game)

    view.__name__ = f"house_rules_{game}"
    view.__doc__ = (
        f"The club's current house rules for {Game(game).label}; PUT adds a new version (admins)."
    )
    view = action(
        detail=True,
        methods=["get", "put"],
        url_path=f"house-rules/{game}",
        url_name=f"house-rules-{game}",
        permission_classes=[permissions.IsAuthenticatedOrReadOnly],
        parser_classes=json_only,
    )(view)
    view = extend_schema(methods=["PUT"], request=request, responses=response)(view)
    return extend_schema(methods=["GET"], responses=response)(view)
