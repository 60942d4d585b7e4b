"""The boards' pages, for every game (``matches/views.py``)."""

from django.urls import path

from matches.boards import tonight_views, views

app_name = "boards"

urlpatterns = [
    path("clubs/<slug:slug>/leaderboards/", views.leaderboards, name="leaderboards"),
    path("clubs/<slug:slug>/players/<int:player_id>/", views.player_page, name="player"),
    path("clubs/<slug:slug>/nights/", views.nights, name="nights"),
    path("clubs/<slug:slug>/tonight/", tonight_views.tonight, name="tonight"),
    path("clubs/<slug:slug>/tonight/events/", tonight_views.tonight_events, name="tonight_events"),
    path("clubs/<slug:slug>/nights/<str:day>/", views.night, name="night"),
]
