from django.urls import path

from clubs import account_views, views
from clubs.inbox import views as inbox_views

app_name = "clubs"

urlpatterns = [
    path("clubs/", views.club_list, name="list"),
    path("clubs/new/", views.club_create, name="create"),
    path("clubs/<slug:slug>/", views.club_detail, name="detail"),
    path("clubs/<slug:slug>/leave/", views.leave, name="leave"),
    path("clubs/<slug:slug>/members/", views.members, name="members"),
    path("clubs/<slug:slug>/members/guests/", views.add_guest, name="add_guest"),
    path(
        "clubs/<slug:slug>/members/guests/<int:player_id>/rename/",
        views.rename_guest,
        name="rename_guest",
    ),
    path(
        "clubs/<slug:slug>/members/guests/<int:player_id>/remove/",
        views.remove_guest,
        name="remove_guest",
    ),
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
    path(
        "clubs/<slug:slug>/settings/seasons/<int:season_id>/",
        views.edit_season,
        name="edit_season",
    ),
    path(
        "clubs/<slug:slug>/settings/seasons/<int:season_id>/delete/",
        views.delete_season,
        name="delete_season",
    ),
    path("invite/<str:token>/", views.invitation, name="invitation"),
    path("accounts/signup/", account_views.sign_up, name="signup"),
    path("accounts/confirm/", account_views.confirm_email_sent, name="confirm_email_sent"),
    path("accounts/confirm/<str:token>/", account_views.confirm_email, name="confirm_email"),
    path("accounts/profile/", account_views.profile, name="profile"),
    path("inbox/", inbox_views.inbox, name="inbox"),
    path("inbox/read-all/", inbox_views.read_all, name="read_all"),
    path("inbox/choices/", inbox_views.save_choices, name="inbox_choices"),
    path("inbox/push/", inbox_views.subscribe, name="push_subscribe"),
    path("inbox/push/remove/", inbox_views.unsubscribe, name="push_unsubscribe"),
    path(
        "inbox/<int:notification_id>/open/",
        inbox_views.open_notification,
        name="open_notification",
    ),
    path("accounts/profile/night-reports/", account_views.night_reports, name="night_reports"),
    path("accounts/profile/tokens/", account_views.revoke_api_tokens, name="revoke_api_tokens"),
]
