import secrets

from django import template
from django.utils.html import format_html

from plumbing.once.sent import FORM_FIELD

register = template.Library()


@register.simple_tag
def once_token() -> str:
    """A write form's one-time token (``plumbing.once``): put it beside ``{% csrf_token %}``;
    the second submit of the same form records nothing and goes where the first went."""
    return format_html(
        '<input type="hidden" name="{}" value="{}">', FORM_FIELD, secrets.token_urlsafe(24)
    )
