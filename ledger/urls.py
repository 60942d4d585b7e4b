from django.urls import path

from ledger import views

app_name = "ledger"

urlpatterns = [
    path("clubs/<slug:slug>/ledger/", views.club_ledger, name="club"),
    path("clubs/<slug:slug>/ledger/payments/", views.record_payment, name="record_payment"),
    path(
        "clubs/<slug:slug>/ledger/payments/<int:payment_id>/confirm/",
        views.confirm_payment,
        name="confirm_payment",
    ),
    path(
        "clubs/<slug:slug>/ledger/payments/<int:payment_id>/cancel/",
        views.cancel_payment,
        name="cancel_payment",
    ),
    path("clubs/<slug:slug>/ledger/players/<int:player_id>/", views.statement, name="statement"),
    path(
        "clubs/<slug:slug>/ledger/players/<int:player_id>/statement.csv",
        views.statement_csv,
        name="statement_csv",
    ),
]
