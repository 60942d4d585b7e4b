from django.urls import path

from matches.results.views import step
from matches.spazzumazz import views

app_name = "spazzumazz"

urlpatterns = [
    path("clubs/<slug:slug>/spazzumazz/", views.games, name="games"),
    path("clubs/<slug:slug>/spazzumazz/new/", views.new_game, name="new"),
    path("clubs/<slug:slug>/spazzumazz/<int:game_id>/", views.game_detail, name="game"),
    path(
        "clubs/<slug:slug>/spazzumazz/<int:game_id>/<str:step>/",
        step,
        {"page": views.GAME},
        name="step",
    ),
]
