from django.urls import path

from matches.nights import views

app_name = "nights"

urlpatterns = [
    path("clubs/<slug:slug>/club-nights/", views.night_list, name="list"),
    path("clubs/<slug:slug>/club-nights/<int:night_id>/", views.night, name="night"),
    path("clubs/<slug:slug>/club-nights/<int:night_id>/answer/", views.answer, name="answer"),
    path("clubs/<slug:slug>/club-nights/<int:night_id>/cancel/", views.cancel, name="cancel"),
]
