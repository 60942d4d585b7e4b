"""``{% webhooks_section access %}``: the webhooks part of the club's settings page (the
page's own view stays the clubs' one)."""

from django import template

from clubs.webhooks.forms import WebhookForm
from clubs.webhooks.models import Delivery, Webhook
from clubs.webhooks.services import MAX_WEBHOOKS_PER_CLUB

register = template.Library()

LOG_LENGTH = 10  # deliveries shown per webhook


@register.inclusion_tag("webhooks/section.html", takes_context=True)
def webhooks_section(context, access):
    webhooks = list(Webhook.objects.filter(club=access.club))
    for webhook in webhooks:  # ten webhooks at most (MAX_WEBHOOKS_PER_CLUB)
        webhook.recent = list(Delivery.objects.filter(webhook=webhook)[:LOG_LENGTH])
    return {
        "club": access.club,
        "webhooks": webhooks,
        "form": WebhookForm(),
        "can_add": len(webhooks) < MAX_WEBHOOKS_PER_CLUB,
        "csrf_token": context.get("csrf_token"),
    }
