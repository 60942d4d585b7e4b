"""What each event's delivery carries, for the schema (``x-webhooks`` in ``/api/schema/``):
one serializer per event's ``data``, each body ``{id, event, created, club, data}``.

The floors that emit build these dictionaries themselves (plain data, no import of this
module): ``tests/test_webhooks_events.py`` checks each against its serializer here.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.plumbing import process_webhooks
from drf_spectacular.utils import OpenApiResponse, OpenApiWebhook, extend_schema
from rest_framework import serializers

from clubs.webhooks.models import Event


class WebhookPlayer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class WebhookLink(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField(help_text=_("The page on the site."))


class WebhookOutcome(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    payload = serializers.DictField(help_text=_("The game's result, as reported."))
    reported_at = serializers.DateTimeField()
    confirmed_at = serializers.DateTimeField(allow_null=True)
    supersedes = serializers.IntegerField(
        allow_null=True, help_text=_("The result a correction replaced.")
    )


class ResultData(serializers.Serializer):
    """``result.confirmed`` and ``result.corrected``: a result came into force (reported by
    someone who may decide, confirmed, or decided) or replaced the one in force."""

    game = serializers.CharField(help_text=_("sputo, singapore or spazzumazz"))
    subject = WebhookLink(help_text=_("The match, hand or game the result is of."))
    subject_type = serializers.CharField(help_text=_("tournamentmatch, hand or spazzumazzgame"))
    result = WebhookOutcome()
    players = WebhookPlayer(many=True)


class WebhookTournament(WebhookLink):
    name = serializers.CharField()


class WebhookMatch(WebhookLink):
    round = serializers.IntegerField()
    round_label = serializers.CharField()
    kind = serializers.CharField()
    best_of = serializers.IntegerField()


class MatchReadyData(serializers.Serializer):
    """``match.ready``: both players of a Sputo tournament match are known and it can be
    played (after the draw, or when the earlier matches' results seat them)."""

    tournament = WebhookTournament()
    match = WebhookMatch()
    players = WebhookPlayer(many=True)


class WebhookPlace(serializers.Serializer):
    place = serializers.IntegerField()
    player = WebhookPlayer()


class TournamentFinishedData(serializers.Serializer):
    """``tournament.finished``: the last result of a Sputo tournament is in."""

    tournament = WebhookTournament()
    finished_at = serializers.DateTimeField()
    standings = WebhookPlace(many=True)


class WebhookHand(WebhookLink):
    number = serializers.IntegerField()
    played_at = serializers.DateTimeField()
    out_of_turn = serializers.BooleanField()


class WebhookHandOutcome(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    payload = serializers.DictField()


class HandRecordedData(serializers.Serializer):
    """``hand.recorded``: a hand was recorded at a Singapore table (in force at once, or
    waiting for the other player's confirmation: ``result.status``)."""

    table = serializers.IntegerField()
    hand = WebhookHand()
    dealer = WebhookPlayer()
    opponent = WebhookPlayer()
    result = WebhookHandOutcome()


class WebhookPayment(serializers.Serializer):
    id = serializers.IntegerField()
    amount = serializers.CharField(help_text=_("A decimal number, as text."))
    unit = serializers.CharField()
    payer = WebhookPlayer()
    payee = WebhookPlayer()
    confirmed_at = serializers.DateTimeField()


class PaymentConfirmedData(serializers.Serializer):
    """``payment.confirmed``: the payee (or an admin) confirmed a payment; it is in the
    ledger."""

    payment = WebhookPayment()


class GameNameChangedData(serializers.Serializer):
    """``game_name.changed``: the club's Spazz'u'mazz game is named after someone else
    ("Gioco di ..."), or after nobody."""

    name = serializers.CharField(
        allow_null=True, help_text=_("The game's name, in the club's language.")
    )
    player = WebhookPlayer(allow_null=True)
    previous = WebhookPlayer(allow_null=True)
    since = serializers.DateTimeField()


DATA = {
    Event.RESULT_CONFIRMED: ResultData,
    Event.RESULT_CORRECTED: ResultData,
    Event.MATCH_READY: MatchReadyData,
    Event.HAND_RECORDED: HandRecordedData,
    Event.TOURNAMENT_FINISHED: TournamentFinishedData,
    Event.PAYMENT_CONFIRMED: PaymentConfirmedData,
    Event.GAME_NAME_CHANGED: GameNameChangedData,
}


def body_serializer(event: str) -> type[serializers.Serializer]:
    """The serializer of the whole body of ``event``'s deliveries."""
    name = "".join(part.title() for part in event.replace(".", "_").split("_"))
    return type(
        f"Webhook{name}",
        (serializers.Serializer,),
        {
            "__doc__": str(Event(event).label),
            "__module__": __name__,
            "id": serializers.UUIDField(help_text=_("The delivery's id (X-Circolo-Delivery).")),
            "event": serializers.CharField(help_text=event),
            "created": serializers.DateTimeField(),
            "club": serializers.SlugField(help_text=_("The club's slug.")),
            "data": DATA[event](),
        },
    )


SIGNATURE = _(
    "POSTed as JSON with the headers X-Circolo-Event, X-Circolo-Delivery (the body's id, the "
    "same at each retry) and X-Circolo-Signature: sha256=<the hex HMAC-SHA256 of the raw "
    "body under the webhook's secret>. Any 2xx answer is a delivery; anything else, or no "
    "answer within a few seconds, is retried with growing waits for a day."
)


def webhooks() -> list[OpenApiWebhook]:
    return [
        OpenApiWebhook(
            name=event,
            decorator=extend_schema(
                summary=str(Event(event).label),
                description=str(SIGNATURE),
                request=body_serializer(event),
                responses={200: OpenApiResponse(description="")},
            ),
        )
        for event in Event.values
    ]


def x_webhooks(result, generator, request, public):
    """A postprocessing hook (``SPECTACULAR_SETTINGS``): the events' deliveries under
    ``x-webhooks`` (the name Redoc reads; the schema is OpenAPI 3.0, whose root has no
    ``webhooks``), with their bodies' components."""
    processed = process_webhooks(webhooks(), generator.registry)
    for item in processed.values():
        for method, operation in item.items():
            # Only what the receiver needs: the API's own errors and security are not its.
            item[method] = {
                "summary": operation["summary"],
                "description": operation["description"],
                "requestBody": operation["requestBody"],
                "responses": {"200": {"description": str(_("Received (any 2xx answer)."))}},
            }
    result["x-webhooks"] = processed
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in generator.registry.build({}).get("schemas", {}).items():
        schemas.setdefault(name, schema)
    return result
