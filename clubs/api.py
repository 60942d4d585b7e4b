"""The clubs' REST API (``/api/v1/``): clubs, players, memberships, seasons, invitations.

Lists hold only what the user may see; an object of a club the user may not see is a 404.

What every viewset gets without asking (``circolo/settings.py``'s ``REST_FRAMEWORK``):
strict filters (``plumbing.filters``), strict page numbers (``plumbing.pagination``), form
bodies read like JSON (``plumbing.parsers``), NUL-free query parameters and JSON errors
(``circolo.middleware``), and an OpenAPI schema with every error response
(``plumbing.schema``). A viewset declares the statuses no rule can guess -- a 409 where a
service refuses a clash with what is stored -- in ``api_errors``.
"""

from __future__ import annotations

import copy
import typing
from dataclasses import MISSING, fields

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.settings import api_settings

from clubs import services
from clubs.access import ClubAccess, access_club, access_with_role, read_with_role, roles_by_club
from clubs.models import CURRENCY_CODES, Club, Game, Invitation, Membership, Player, Role, Season
from clubs.throttles import INVITATION, over_limit
from plumbing.errors import NOT_FOUND
from plumbing.strict import StrictModelSerializer, StrictSerializer
from rules.house_rules import RULES_BY_GAME

# --- A club's house rules in the API ---------------------------------------------------------
#
# House rules in the REST API: one operation per game (``clubs/<slug>/house-rules/<game>/``),
# its body described from the rules engine's settings type, so the schema and the engine never
# disagree. ``ClubViewSet`` (``clubs.api``) takes one action per game from here.


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


# --- The viewsets ----------------------------------------------------------------------------


class ClubSerializer(StrictModelSerializer):
    my_role = serializers.SerializerMethodField()
    currency = serializers.ChoiceField(
        choices=CURRENCY_CODES,
        required=False,
        help_text=Club._meta.get_field("currency").help_text,
        error_messages={
            "invalid_choice": gettext_lazy(
                "{input} is not an ISO 4217 currency code (such as EUR)."
            )
        },
    )

    class Meta:
        model = Club
        fields = ["slug", *services.CLUB_SETTINGS, "created_at", "my_role"]
        read_only_fields = ["slug", "created_at", "my_role"]

    def get_my_role(self, club) -> str | None:
        request = self.context.get("request")
        return roles_by_club(request).get(club.pk) if request else None


@extend_schema_field(OpenApiTypes.STR)  # a slug: documented as text that is not blank
class ClubSlugField(serializers.SlugRelatedField):
    """A club named by slug, among the clubs the requesting user may see (another is a
    404 naming the field); read with the user's role in it, which ``access_club`` then
    asks no more (``clubs.access.read_with_role``)."""

    def __init__(self, **kwargs):
        super().__init__(slug_field="slug", **kwargs)

    def get_queryset(self):
        return Club.objects.visible_with_role(self.context["request"].user)

    def to_internal_value(self, data):
        return read_with_role(super().to_internal_value(data), self.context["request"].user)


class PlayerSerializer(StrictModelSerializer):
    club = ClubSlugField()
    is_guest = serializers.BooleanField(read_only=True)
    username = serializers.SerializerMethodField(
        help_text=gettext_lazy("The member's login name: shown to members of the club only.")
    )

    def get_username(self, player) -> str | None:
        request = self.context.get("request")
        if player.user is None or request is None or player.club_id not in roles_by_club(request):
            return None
        return player.user.get_username()

    class Meta:
        model = Player
        fields = ["id", "club", "display_name", "is_guest", "username", "merged_into", "created_at"]
        read_only_fields = ["id", "is_guest", "username", "merged_into", "created_at"]

    def validate_display_name(self, value: str) -> str:
        value = value.strip()
        if not value:
            raise serializers.ValidationError(_("A player needs a name."))
        return value


class PlayerUpdateSerializer(PlayerSerializer):
    """A player stays in their club: ``club`` is not read from the body of a PUT or PATCH."""

    club = serializers.SlugRelatedField(slug_field="slug", read_only=True)


class MembershipSerializer(StrictModelSerializer):
    club = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "club", "username", "role", "joined_at"]
        read_only_fields = ["id", "club", "username", "joined_at"]
        # The role is all a PUT can change: one without it is a mistake, not a no-op.
        extra_kwargs = {"role": {"required": True}}


class SeasonSerializer(StrictModelSerializer):
    """Names, the order of the dates and overlaps are checked by ``services`` (one message
    for the pages and the API)."""

    club = ClubSlugField()

    class Meta:
        model = Season
        fields = ["id", "club", "name", "start", "end"]
        validators: list = []  # the services check the (club, name) constraint, naming `name`


class SeasonUpdateSerializer(SeasonSerializer):
    """A season stays in its club: ``club`` is not read from the body of a PUT or PATCH."""

    club = serializers.SlugRelatedField(slug_field="slug", read_only=True)


class VisiblePlayerField(serializers.PrimaryKeyRelatedField):
    """A player named by id, among the clubs the requesting user may see: a player of a
    private club reads as one that does not exist."""

    def get_queryset(self):
        return Player.objects.visible_to(self.context["request"].user)


class InvitationSerializer(StrictModelSerializer):
    club = ClubSlugField()
    player = VisiblePlayerField(
        required=False, allow_null=True, help_text=Invitation._meta.get_field("player").help_text
    )
    url = serializers.SerializerMethodField()

    class Meta:
        model = Invitation
        fields = [
            "id",
            "club",
            "token",
            "url",
            "email",
            "emailed_at",
            "role",
            "player",
            "max_uses",
            "uses",
            "expires_at",
            "revoked_at",
            "created_at",
        ]
        read_only_fields = ["id", "token", "url", "emailed_at", "uses", "revoked_at", "created_at"]

    def get_url(self, invitation) -> str:
        return self.context["request"].build_absolute_uri(invitation.get_absolute_url())


class InvitationTokenSerializer(StrictSerializer):
    token = serializers.CharField(max_length=64)


class MergeSerializer(StrictSerializer):
    into = serializers.IntegerField(
        help_text=gettext_lazy("The id of the player to merge this guest into.")
    )


# --- Access: the one door of clubs.access, for viewsets ------------------------------------


class ClubAccessMixin:
    """For viewsets of models that belong to a club (``clubs.access`` has the policy).

    - Lists and lookups hold what the user may see (``Model.objects.visible_to(user)``):
      anything else is a 404.
    - Writing to an object needs the role ``role_to_write(obj)`` in its club (admin unless
      a viewset says otherwise), checked as the object is fetched, before the body is
      read: a 403 (401 for anonymous) whatever is sent.
    - Creating needs ``create_role`` in the club named in the body: ``require(club, role)``.
    """

    model: type | None = None
    create_role: str = Role.ADMIN
    related: tuple[str, ...] = ()  # fetched with each row (``select_related``)
    update_serializer_class: type | None = None  # PUT's and PATCH's, where not POST's
    #: The requesting user's access to the club of the object a write was checked on.
    club_access: ClubAccess | None = None

    def get_queryset(self):
        visible = self._visible_rows()
        return visible.select_related(*self.related) if self.related else visible

    def _visible_rows(self):
        # A write reads the user's role in the row's club with the row (``role_here``): the
        # role tells what they see too (``visible_with_role``), and ``require`` checks it.
        rows = self.model.objects.all()
        writes = self.request.method not in permissions.SAFE_METHODS
        if writes and any(f.name == "club" for f in self.model._meta.concrete_fields):
            return rows.visible_with_role(self.request.user)
        return rows.visible_to(self.request.user)

    def get_serializer_class(self):
        if self.update_serializer_class and self.action in {"update", "partial_update"}:
            return self.update_serializer_class
        return super().get_serializer_class()

    def role_to_write(self, obj) -> str | None:
        return Role.ADMIN

    def club_of(self, obj) -> Club:
        return obj.club

    def require(self, club: Club, role: str | None, *, obj=None) -> ClubAccess:
        """The user's access to ``club`` with at least ``role`` (403 otherwise). ``obj``: a
        row read by :meth:`get_object` with the user's role in its club, asked no more."""
        user = self.request.user
        try:
            if obj is not None and hasattr(obj, "role_here") and obj.club_id == club.pk:
                return access_with_role(club, obj.role_here, at_least=role, user_id=user.pk)
            return access_club(user, club, at_least=role)
        except DjangoPermissionDenied as denied:
            self.permission_denied(self.request, message=str(denied) or None)

    def get_object(self):
        """DRF's lookup. For a write, ``get_queryset`` reads the user's role in the object's
        club in the same query: one query less on every write, the club night's hot paths;
        and the list's filters are not built for it (the schema gives them to lists alone,
        and a write names its row by its path)."""
        queryset = self.get_queryset()
        if self.request.method in permissions.SAFE_METHODS:
            queryset = self.filter_queryset(queryset)
        lookup = self.lookup_url_kwarg or self.lookup_field
        obj = get_object_or_404(queryset, **{self.lookup_field: self.kwargs[lookup]})
        self.check_object_permissions(self.request, obj)
        return obj

    def check_object_permissions(self, request, obj):
        """A write needs ``role_to_write(obj)``; its access is kept as ``club_access`` for
        the service that writes (no second check in the same request)."""
        super().check_object_permissions(request, obj)
        if request.method not in permissions.SAFE_METHODS:
            self.club_access = self.require(self.club_of(obj), self.role_to_write(obj), obj=obj)


class AddChangeViewSet(
    ClubAccessMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Rows of a club that are added and changed but never deleted (its players, its
    tournaments)."""


class AddRemoveViewSet(
    ClubAccessMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Rows of a club that its admins add and remove but never change (its invitations, its
    webhooks), for signed-in users only."""

    permission_classes = [permissions.IsAuthenticated]


class ClubFilter(filters.FilterSet):
    mine = filters.BooleanFilter(method="filter_mine", label=gettext_lazy("Only my clubs"))

    class Meta:
        model = Club
        fields = ["city", "is_public", "mine"]

    def filter_mine(self, queryset, name, value):
        return queryset.of_user(self.request.user) if value else queryset


# --- Viewsets -------------------------------------------------------------------------------


class ClubViewSet(ClubAccessMixin, viewsets.ModelViewSet):
    model = Club
    queryset = Club.objects.none()  # the schema's model; get_queryset filters
    serializer_class = ClubSerializer
    lookup_field = "slug"
    filterset_class = ClubFilter
    search_fields = ["name", "city"]
    ordering_fields = ["name", "city", "created_at"]
    http_method_names = ["get", "post", "put", "patch", "head", "options"]

    def club_of(self, obj) -> Club:
        return obj

    def perform_create(self, serializer):
        serializer.instance = services.create_club(
            founder=self.request.user, **serializer.validated_data
        )

    def perform_update(self, serializer):
        serializer.instance = services.update_club(
            club=serializer.instance, **serializer.validated_data
        )

    def house_rules(self, request, game: str):
        """The club's current house rules for ``game``; PUT adds a new version (admins)."""
        club = self.get_object()  # a PUT checks the admin role here
        if request.method == "PUT":
            values = request.data.get("rules") if isinstance(request.data, dict) else None
            try:
                services.update_house_rules(club=club, game=game, values=values, by=request.user)
            except DjangoValidationError as error:
                raise serializers.ValidationError(
                    {k if k == "rules" else f"rules.{k}": v for k, v in error.message_dict.items()}
                ) from error
        current = club.current_house_rules(game)
        return Response(
            {
                "game": game,
                "version": current.version if current else None,
                "rules": services.house_rules_for(club=club, game=game),
            }
        )

    house_rules_singapore = house_rules_action(Game.SINGAPORE)
    house_rules_sputo = house_rules_action(Game.SPUTO)
    house_rules_spazzumazz = house_rules_action(Game.SPAZZUMAZZ)


class PlayerViewSet(AddChangeViewSet):
    """Players of the clubs you can see. Scorers add guests; admins rename and merge."""

    model = Player
    create_role = Role.SCORER
    queryset = Player.objects.none()  # the schema's model; get_queryset filters
    serializer_class = PlayerSerializer
    update_serializer_class = PlayerUpdateSerializer
    related = ("club", "user")
    filterset_fields = {"club__slug": ["exact"], "user": ["isnull"]}
    search_fields = ["display_name"]
    ordering_fields = ["display_name", "created_at"]
    api_errors = {"create": {409}, "update": {409}, "partial_update": {409}, "merge": {409}}

    def get_queryset(self):
        return super().get_queryset().active()

    def perform_create(self, serializer):
        club = serializer.validated_data["club"]
        self.require(club, self.create_role)
        serializer.instance = services.add_guest(
            club=club, display_name=serializer.validated_data["display_name"]
        )

    def perform_update(self, serializer):
        if "display_name" in serializer.validated_data:
            services.rename_player(
                player=serializer.instance, display_name=serializer.validated_data["display_name"]
            )

    @extend_schema(request=MergeSerializer, responses=PlayerSerializer)
    @action(detail=True, methods=["post"])
    def merge(self, request, pk=None):
        """Merge this guest into another player of the club (admins): all history moves."""
        source = self.get_object()  # checks the admin role
        data = MergeSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        target = source.club.players.active().filter(pk=data.validated_data["into"]).first()
        if target is None:
            raise serializers.ValidationError(
                {"into": [_("No such player in this club.")]}, code=NOT_FOUND
            )
        merged = services.merge_players(source=source, target=target)
        return Response(PlayerSerializer(merged, context=self.get_serializer_context()).data)


class MembershipViewSet(
    ClubAccessMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Memberships of your clubs. Admins change roles and remove members; anyone may leave."""

    model = Membership
    queryset = Membership.objects.none()  # the schema's model; get_queryset filters
    serializer_class = MembershipSerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_fields = {"club__slug": ["exact"], "role": ["exact"]}
    ordering_fields = ["joined_at", "role"]
    related = ("club", "user")
    # A club keeps at least one admin.
    api_errors = {"update": {409}, "partial_update": {409}, "destroy": {409}}

    def role_to_write(self, obj) -> str | None:
        leaving = self.request.method == "DELETE" and obj.user_id == self.request.user.pk
        return None if leaving else Role.ADMIN

    def perform_update(self, serializer):
        role = serializer.validated_data.get("role", serializer.instance.role)
        serializer.instance = services.change_role(membership=serializer.instance, role=role)

    def perform_destroy(self, instance):
        services.remove_member(membership=instance)


class SeasonViewSet(ClubAccessMixin, viewsets.ModelViewSet):
    model = Season
    queryset = Season.objects.none()  # the schema's model; get_queryset filters
    serializer_class = SeasonSerializer
    update_serializer_class = SeasonUpdateSerializer
    related = ("club",)
    filterset_fields = {"club__slug": ["exact"], "start": ["gte", "lte"], "end": ["gte", "lte"]}
    ordering_fields = ["start", "end", "name"]
    # Names and dates clash with other seasons; a season with games stays.
    api_errors = {"create": {409}, "update": {409}, "partial_update": {409}, "destroy": {409}}

    def perform_create(self, serializer):
        data = serializer.validated_data
        self.require(data["club"], self.create_role)
        serializer.instance = services.create_season(
            club=data["club"], name=data["name"], start=data["start"], end=data["end"]
        )

    def perform_update(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.update_season(
            season=serializer.instance,
            name=data.get("name"),
            start=data.get("start"),
            end=data.get("end"),
        )

    def perform_destroy(self, instance):
        services.delete_season(season=instance)


class InvitationViewSet(AddRemoveViewSet):
    """Invitations of the clubs you administer; DELETE revokes one. ``accept`` joins a club."""

    model = Invitation
    queryset = Invitation.objects.none()  # the schema's model; get_queryset filters
    serializer_class = InvitationSerializer
    related = ("club",)
    filterset_fields = {"club__slug": ["exact"], "role": ["exact"]}
    # A guest to claim who is a member now; an invitation used up, expired or revoked, or
    # accepted by a member. An unknown token is a 404.
    api_errors = {"create": {409, 429}, "accept": {404, 409}}

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        club = data.pop("club")
        self.require(club, self.create_role)
        if data.get("email"):
            wait = over_limit(self.request, group=INVITATION, recipient=data["email"])
            if wait is not None:
                raise exceptions.Throttled(wait)
        serializer.instance = services.create_invitation(club=club, by=self.request.user, **data)

    def perform_destroy(self, instance):
        services.revoke_invitation(invitation=instance)

    @extend_schema(request=InvitationTokenSerializer, responses=MembershipSerializer)
    @action(detail=False, methods=["post"])
    def accept(self, request):
        """Join the invitation's club with the signed-in account."""
        data = InvitationTokenSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        membership = services.accept_invitation(
            token=data.validated_data["token"], user=request.user
        )
        return Response(MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)
