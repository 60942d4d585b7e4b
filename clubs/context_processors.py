from clubs.models import Club


def my_clubs(request):
    """The signed-in user's clubs, for the navigation bar (evaluated only if a template asks)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"my_clubs": Club.objects.none()}
    return {"my_clubs": Club.objects.of_user(user)}
