"""API plumbing shared by every app: the error format and the rules-error bridge."""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, parsers, serializers
from rest_framework.authtoken import views as authtoken_views
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from circolo.parsers import JSONParser
from clubs.errors import Conflict


class ConflictError(exceptions.APIException):
    status_code = 409
    default_detail = _("This conflicts with the current state.")
    default_code = "conflict"


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, plus model/service ``ValidationError`` turned into a 400 naming fields."""
    if isinstance(exc, DjangoValidationError):
        if hasattr(exc, "message_dict"):
            detail = exc.message_dict
        else:
            detail = {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail=detail)
    elif isinstance(exc, IntegrityError):
        # A constraint caught what validation could not: two requests raced for one name.
        exc = exceptions.ValidationError(
            {"non_field_errors": [_("This conflicts with a change made at the same moment.")]}
        )
    elif isinstance(exc, Conflict):
        exc = ConflictError(exc.message)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    return drf_exception_handler(exc, context)


def field_error(field: str, message: str) -> serializers.ValidationError:
    return serializers.ValidationError({field: [message]})


class TokenRequestSerializer(AuthTokenSerializer):
    """DRF's token request with the user model's length limit on the username (a longer one
    cannot exist and would overflow django-axes' log of failed logins)."""

    username = serializers.CharField(label=_("Username"), max_length=150, write_only=True)


class ObtainAuthToken(authtoken_views.ObtainAuthToken):
    serializer_class = TokenRequestSerializer
    parser_classes = [parsers.FormParser, parsers.MultiPartParser, JSONParser]
