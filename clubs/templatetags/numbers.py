"""Numbers people read, grouped as their language writes them: ``{{ points|grouped }}``
gives 12.345 in Italian and 12,345 in English (a Decimal keeps its places: 1.234,50).
A builtin of the templates (``circolo/settings.py``), for every app's pages."""

from django import template
from django.utils import formats

register = template.Library()


@register.filter
def grouped(value):
    """``value`` with the language's thousands and decimal separators; anything that is not
    a number (None, "") as it is."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        and not hasattr(value, "quantize")
    ):
        return value
    return formats.number_format(value, use_l10n=True, force_grouping=True)
