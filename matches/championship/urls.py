from django.urls import path

from matches.championship import views

app_name = "championship"

urlpatterns = [
    path("clubs/<slug:slug>/championship/", views.current, name="current"),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/championship/",
        views.standings_page,
        name="standings",
    ),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/championship/standings.csv",
        views.standings_csv,
        name="csv",
    ),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/championship/rules/",
        views.rules,
        name="rules",
    ),
    path(
        "clubs/<slug:slug>/seasons/<int:season_id>/championship/final/",
        views.final,
        name="final",
    ),
]
