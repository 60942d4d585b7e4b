from django.urls import path

from clubs import views

app_name = "clubs"

urlpatterns = [
    path("clubs/", views.club_list, name="list"),
    path("clubs/new/", views.club_create, name="create"),
    path("clubs/<slug:slug>/", views.club_detail, name="detail"),
    path("clubs/<slug:slug>/members/", views.members, name="members"),
    path("clubs/<slug:slug>/members/guests/", views.add_guest, name="add_guest"),
    path("clubs/<slug:slug>/members/merge/", views.merge_guest, name="merge_guest"),
    path(
        "clubs/<slug:slug>/members/<int:membership_id>/role/", views.change_role, name="change_role"
    ),
    path(
        "clubs/<slug:slug>/members/<int:membership_id>/remove/",
        views.remove_member,
        name="remove_member",
    ),
    path("clubs/<slug:slug>/invitations/", views.create_invitation, name="create_invitation"),
    path(
        "clubs/<slug:slug>/invitations/<int:invitation_id>/revoke/",
        views.revoke_invitation,
        name="revoke_invitation",
    ),
    path("clubs/<slug:slug>/settings/", views.settings_page, name="settings"),
    path("invite/<str:token>/", views.invitation, name="invitation"),
]
