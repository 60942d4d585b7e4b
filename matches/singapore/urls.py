"""Singapore tables' pages, under ``/clubs/<slug>/tables/`` (included from circolo/urls.py)."""

from django.urls import path

from matches.results.views import step
from matches.singapore import views

app_name = "singapore"

urlpatterns = [
    path("tables/", views.tables, name="tables"),
    path("tables/new/", views.open_table, name="open_table"),
    path("tables/<int:session_id>/", views.table, name="table"),
    path("tables/<int:session_id>/seats/", views.join, name="join"),
    path("tables/<int:session_id>/seats/<int:player_id>/<slug:step>/", views.seat, name="seat"),
    path("tables/<int:session_id>/close/", views.close, name="close"),
    path("tables/<int:session_id>/reopen/", views.reopen, name="reopen"),
    path("tables/<int:session_id>/hands/new/", views.new_hand, name="new_hand"),
    path("tables/<int:session_id>/hands/<int:hand_id>/", views.hand, name="hand"),
    path(
        "tables/<int:session_id>/hands/<int:hand_id>/correct/",
        step,
        {"page": views.HAND, "step": "correct"},
        name="correct",
    ),
    path(
        "tables/<int:session_id>/hands/<int:hand_id>/<slug:step>/",
        step,
        {"page": views.HAND},
        name="hand_step",
    ),
    path("tables/<int:session_id>/sheet/", views.sheet, name="sheet"),
    path("tables/<int:session_id>/sheet.csv", views.sheet_download, name="sheet_csv"),
]
