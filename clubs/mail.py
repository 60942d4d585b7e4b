"""What every e-mail of the site shares."""

from django.template.loader import render_to_string


def render_subject(template_name: str, context: dict) -> str:
    """A subject line from a template, on one line whatever the names in it hold.

    A header cannot contain a newline (Django raises ``BadHeaderError``), and a club or
    player name typed with one must not stop the mail: every run of whitespace becomes
    one space.
    """
    return " ".join(render_to_string(template_name, context).split())
