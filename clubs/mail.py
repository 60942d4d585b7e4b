"""What every e-mail of the site shares."""

from django.template.loader import render_to_string
from django.utils import translation


def render_subject(template_name: str, context: dict) -> str:
    """A subject line from a template, on one line whatever the names in it hold.

    A header cannot contain a newline (Django raises ``BadHeaderError``), and a club or
    player name typed with one must not stop the mail: every run of whitespace becomes
    one space.
    """
    return " ".join(render_to_string(template_name, context).split())


def render_mail(template: str, context: dict, *, language: str) -> tuple[str, str]:
    """A mail's subject and text in ``language``, from the templates ``<template>_subject.txt``
    and ``<template>.txt``."""
    with translation.override(language):
        subject = render_subject(f"{template}_subject.txt", context)
        return subject, render_to_string(f"{template}.txt", context)
