"""``GET /api/v1/notifications/``: what waits for the signed-in person, unread first (a
list, at most :data:`LIMIT`); ``POST /api/v1/notifications/{id}/read/``; and
``POST /api/v1/notifications/read-all/``. Someone else's notification is a 404."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from clubs.inbox import services
from clubs.inbox.models import Kind, Notification

LIMIT = 200


class NotificationSerializer(serializers.ModelSerializer):
    kind = serializers.ChoiceField(choices=Kind.choices, read_only=True)
    text = serializers.SerializerMethodField(help_text="The action in words, in your language.")
    club = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    read = serializers.BooleanField(read_only=True)

    class Meta:
        model = Notification
        fields = ["id", "kind", "text", "url", "club", "created", "read"]
        read_only_fields = fields

    def get_text(self, notification: Notification) -> str:
        return services.sentence(notification)


class NotificationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = NotificationSerializer
    permission_classes = [permissions.IsAuthenticated]
    pagination_class = None
    filter_backends: list = []

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema's generator
            return Notification.objects.none()
        return services.waiting_for(self.request.user)

    def list(self, request, *args, **kwargs):
        rows = self.get_queryset()[:LIMIT]
        return Response(self.get_serializer(rows, many=True).data)

    @extend_schema(request=None, responses=NotificationSerializer)
    @action(detail=True, methods=["post"])
    def read(self, request, pk=None):
        notification = self.get_object()
        services.mark_read(notification=notification)
        return Response(self.get_serializer(notification).data)

    @extend_schema(request=None, responses={200: {"type": "object"}})
    @action(detail=False, methods=["post"], url_path="read-all")
    def read_all(self, request):
        return Response({"marked": services.mark_all_read(user=request.user)})


def register(router) -> None:
    router.register("notifications", NotificationViewSet, basename="notification")
