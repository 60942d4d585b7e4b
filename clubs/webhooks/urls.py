from django.urls import path

from clubs.webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("clubs/<slug:slug>/settings/webhooks/", views.add_webhook, name="add"),
    path(
        "clubs/<slug:slug>/settings/webhooks/<int:webhook_id>/pause/",
        views.pause_webhook,
        name="pause",
    ),
    path(
        "clubs/<slug:slug>/settings/webhooks/<int:webhook_id>/resume/",
        views.resume_webhook,
        name="resume",
    ),
    path(
        "clubs/<slug:slug>/settings/webhooks/<int:webhook_id>/delete/",
        views.delete_webhook,
        name="delete",
    ),
]
