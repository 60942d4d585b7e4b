"""The day and month names dates are written with, as Django's own catalogue words them
(``django.utils.dates``): listed here so that ``makemessages`` keeps them in ours, where the
Italian is lower case as Italians write a date ("venerdì 4 dicembre 2026"); Django's
catalogue capitalises them. Our catalogue (``LOCALE_PATHS``) wins over Django's.

Nothing imports this module: it is only read by ``makemessages``.
"""

from django.utils.translation import gettext_noop

WEEKDAYS = [
    gettext_noop("Monday"),
    gettext_noop("Tuesday"),
    gettext_noop("Wednesday"),
    gettext_noop("Thursday"),
    gettext_noop("Friday"),
    gettext_noop("Saturday"),
    gettext_noop("Sunday"),
]
MONTHS = [
    gettext_noop("January"),
    gettext_noop("February"),
    gettext_noop("March"),
    gettext_noop("April"),
    gettext_noop("May"),
    gettext_noop("June"),
    gettext_noop("July"),
    gettext_noop("August"),
    gettext_noop("September"),
    gettext_noop("October"),
    gettext_noop("November"),
    gettext_noop("December"),
]
