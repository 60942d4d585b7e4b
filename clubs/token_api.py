"""The API's token endpoint, ``POST /api/v1/auth/token/``: a token per device, with its expiry
(``clubs.tokens`` issues and revokes them)."""

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.authtoken import views as authtoken_views
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.response import Response

from clubs.tokens import DEVICE_MAX_LENGTH, issue_token
from plumbing.parsers import FormParser, JSONParser, MultiPartParser
from plumbing.schema import ERROR_RESPONSE
from plumbing.strict import StrictInputMixin


class TokenRequestSerializer(StrictInputMixin, AuthTokenSerializer):
    """DRF's token request with the user model's length limit on the username (a longer one
    cannot exist and would overflow django-axes' log of failed logins), and the device's
    name, which the profile page lists with the token."""

    username = serializers.CharField(label=_("Username"), max_length=150, write_only=True)
    device = serializers.CharField(
        label=_("Device"),
        max_length=DEVICE_MAX_LENGTH,
        required=False,
        write_only=True,
        help_text=_("A name for the device or app (by default, its User-Agent header)."),
    )


class ObtainAuthToken(authtoken_views.ObtainAuthToken):
    """A new token for a username and password, one for each device, valid until its
    ``expiry``; send it as ``Authorization: Token <token>``.

    A new password, and "log out everywhere" on the profile page, revoke the tokens.
    Credentials that do not log in are a 401, like every failed authentication; a request
    without them is a 400 naming the field; too many failures lock the username out (a 429,
    django-axes). Whatever ``Authorization`` header comes along is not looked at.
    """

    serializer_class = TokenRequestSerializer
    parser_classes = [FormParser, MultiPartParser, JSONParser]
    authentication_classes: list = []

    def get_authenticate_header(self, request) -> str:
        return "Token"

    @extend_schema(
        responses={
            200: inline_serializer(
                "Token",
                {
                    "token": serializers.CharField(),
                    "expiry": serializers.DateTimeField(
                        allow_null=True, help_text=_("When the token stops working.")
                    ),
                },
            ),
            401: ERROR_RESPONSE,
            429: ERROR_RESPONSE,
        }
    )
    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        try:
            serializer.is_valid(raise_exception=True)
        except exceptions.ValidationError as error:
            if getattr(request, "axes_locked_out", False):
                # django-axes marks the DRF request, which its middleware does not see.
                raise exceptions.Throttled(
                    detail=_("Too many failed logins: try again later.")
                ) from None
            refusal = error.detail.get("non_field_errors", [None])[0]
            if getattr(refusal, "code", None) == "authorization":  # the credentials are wrong
                raise exceptions.AuthenticationFailed(refusal) from None
            raise
        data = serializer.validated_data
        token, key = issue_token(
            user=data["user"],
            device=data.get("device") or request.META.get("HTTP_USER_AGENT", ""),
        )
        expiry = serializers.DateTimeField().to_representation(token.expiry)
        return Response({"token": key, "expiry": expiry})
