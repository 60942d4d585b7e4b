from django.utils.functional import SimpleLazyObject

from clubs.models import Club


def my_clubs(request):
    """The signed-in user's clubs, for the navigation bar (evaluated only if a template asks;
    even the query is built only then: every logged-in page runs this, one page uses it)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"my_clubs": Club.objects.none()}
    return {"my_clubs": SimpleLazyObject(lambda: Club.objects.of_user(user))}
