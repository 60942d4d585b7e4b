"""The tournament pages, under ``/clubs/<slug>/tournaments/``, and the calendar feeds."""

from django.urls import path

from matches.results.views import step
from matches.sputo import entrant_views, views

app_name = "sputo"

T = "clubs/<slug:slug>/tournaments/<int:tournament_id>/"

urlpatterns = [
    path("clubs/<slug:slug>/tournaments/", views.tournament_list, name="tournaments"),
    path("clubs/<slug:slug>/tournaments/new/", views.tournament_create, name="create"),
    path(T, views.tournament_detail, name="tournament"),
    path(f"{T}bracket/", views.bracket_page, name="bracket"),
    path(f"{T}update/", views.tournament_update, name="update"),
    path(f"{T}entrants/", views.enter, name="enter"),
    path(f"{T}entrants/add/", entrant_views.enter_many, name="enter_many"),
    path(
        f"{T}entrants/<int:entrant_id>/withdraw/",
        entrant_views.remove_entry,
        name="withdraw_entry",
    ),
    path(f"{T}cancel/", entrant_views.cancel, name="cancel"),
    path(f"{T}check-in/", views.check_in, name="check_in"),
    path(f"{T}entrants/<int:entrant_id>/replace/", views.replace_entry, name="replace_entry"),
    path(f"{T}draw/", views.draw, name="draw"),
    path(f"{T}next-stage/", views.next_stage, name="next_stage"),
    path(f"{T}rounds/next/", views.next_round, name="next_round"),
    path(f"{T}forbidden-pairs/", views.forbid_pair, name="forbid_pair"),
    path(f"{T}rounds/start/", views.start_round, name="start_round"),
    path(f"{T}matches/<int:match_id>/", views.match_page, name="match"),
    path(f"{T}matches/<int:match_id>/resolve/", views.resolve, name="resolve"),
    path(
        f"{T}matches/<int:match_id>/<str:step>/",
        step,
        {"page": views.MATCH},
        name="match_step",
    ),
    path("calendar/", views.calendar_page, name="calendar"),
    path("calendar/<str:token>/matches.ics", views.my_calendar, name="my_calendar"),
    path("calendar/<str:token>/clubs/<slug:slug>.ics", views.club_calendar, name="club_calendar"),
]
