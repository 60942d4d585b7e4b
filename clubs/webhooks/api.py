"""``/api/v1/webhooks/``: a club's admins register, list, pause, resume and delete the URLs
told about the club's events, and read each one's delivery log. A webhook is a matter for
its club's admins only: to anyone else it does not exist (404); registering one for a club
you may see but do not administer is a 403."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.response import Response

from clubs.api import AddRemoveViewSet, ClubSlugField
from clubs.webhooks import services
from clubs.webhooks.models import Delivery, Event, PausedBecause, Webhook
from plumbing.strict import StrictModelSerializer, json_parsers

RECENT_DELIVERIES = 50


class WebhookSerializer(StrictModelSerializer):
    club = ClubSlugField()
    url = serializers.CharField(max_length=500, help_text=Webhook._meta.get_field("url").help_text)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=Event.choices),
        allow_empty=False,
        min_length=1,  # the schema's minItems
        help_text=_("The events to send to the URL."),
    )
    secret = serializers.CharField(
        read_only=True,
        help_text=_(
            "The key of each delivery's signature: X-Circolo-Signature is sha256= and the "
            "hex HMAC-SHA256 of the body under it."
        ),
    )

    paused_because = serializers.SerializerMethodField(
        help_text=_("admin or failing (a day of failed deliveries); null while it runs.")
    )

    class Meta:
        model = Webhook
        fields = [
            "id",
            "club",
            "url",
            "events",
            "secret",
            "created_at",
            "paused_at",
            "paused_because",
            "failing_since",
        ]
        read_only_fields = [
            "id",
            "secret",
            "created_at",
            "paused_at",
            "paused_because",
            "failing_since",
        ]

    @extend_schema_field(
        serializers.ChoiceField(choices=PausedBecause.choices, allow_null=True, read_only=True)
    )
    def get_paused_because(self, webhook) -> str | None:
        return webhook.paused_because or None


class DeliverySerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="uid", read_only=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "event",
            "status",
            "attempts",
            "response_code",
            "error",
            "created_at",
            "last_attempt_at",
            "next_attempt_at",
            "delivered_at",
            "body",
        ]
        read_only_fields = fields


class WebhookViewSet(AddRemoveViewSet):
    """The webhooks of the clubs you administer (with their secrets)."""

    model = Webhook
    queryset = Webhook.objects.none()  # the schema's model; get_queryset filters
    serializer_class = WebhookSerializer
    related = ("club",)
    parser_classes = json_parsers()  # events are a list: JSON, not a form
    filterset_fields = {"club__slug": ["exact"]}

    def perform_create(self, serializer):
        data = serializer.validated_data
        self.require(data["club"], self.create_role)
        serializer.instance = services.create_webhook(
            club=data["club"], url=data["url"], events=data["events"], by=self.request.user
        )

    def perform_destroy(self, instance):
        services.delete_webhook(webhook=instance)

    @extend_schema(request=None, responses=WebhookSerializer)
    @action(detail=True, methods=["post"])
    def pause(self, request, pk=None):
        """Stop sending to the URL (deliveries wait until it is resumed)."""
        webhook = services.pause_webhook(webhook=self.get_object())
        return Response(WebhookSerializer(webhook, context=self.get_serializer_context()).data)

    @extend_schema(request=None, responses=WebhookSerializer)
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        """Send to the URL again (a URL paused after a day of failures too)."""
        webhook = services.resume_webhook(webhook=self.get_object())
        return Response(WebhookSerializer(webhook, context=self.get_serializer_context()).data)

    @extend_schema(request=None, responses=DeliverySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None, filterset_fields=None)
    def deliveries(self, request, pk=None):
        """The delivery log: the latest deliveries to the URL, newest first."""
        webhook = self.get_object()
        recent = webhook.deliveries.all()[:RECENT_DELIVERIES]
        return Response(DeliverySerializer(recent, many=True).data, status=status.HTTP_200_OK)
