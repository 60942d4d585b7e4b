from django import template

from clubs import club_page

register = template.Library()


@register.inclusion_tag("clubs/_club_header.html", takes_context=True)
def club_header(context, access):
    """The club's name and its tabs (``clubs.club_page``), the current one marked."""
    request = context["request"]
    return {
        "club": access.club,
        "tabs": [(tab, tab.is_current(request.path)) for tab in club_page.tabs(request, access)],
    }
