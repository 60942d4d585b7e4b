from django.contrib import admin
from knox.models import AuthToken as KnoxAuthToken

from clubs.changes import club_changed
from clubs.models import (
    ApiToken,
    Club,
    EmailConfirmation,
    HouseRuleSet,
    Invitation,
    Membership,
    Player,
    Profile,
    Season,
)


class Unchangeable:
    """Records written by the services (or by the API only): read here, never added or
    changed from the admin; deleting stays open. The apps above use it too."""

    def has_add_permission(self, request, obj=None):  # obj: an inline's parent
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ChangesItsClub:
    """What is saved or deleted here changes its club's pages: an edit in the admin passes
    by the services, which name what they change, so every page of the club is built again
    (``clubs.changes.club_changed``, once the admin's transaction commits)."""

    @staticmethod
    def _club_of(obj) -> int:
        return obj.pk if isinstance(obj, Club) else obj.club_id

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        club_changed(self._club_of(obj))

    def delete_model(self, request, obj):
        club_changed(self._club_of(obj))
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            club_changed(self._club_of(obj))
        super().delete_queryset(request, queryset)


class Untouchable(Unchangeable):
    """Shown as written: never added, changed or deleted from the admin."""

    def has_delete_permission(self, request, obj=None):
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]


class SeasonInline(admin.TabularInline):
    model = Season
    extra = 0


@admin.register(Club)
class ClubAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["name", "city", "is_public", "point_value", "currency", "language"]
    list_filter = ["is_public", "language"]
    search_fields = ["name", "city", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline, SeasonInline]


@admin.register(Player)
class PlayerAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["display_name", "club", "user", "merged_into", "created_at"]
    list_filter = ["club"]
    search_fields = ["display_name", "user__username"]
    raw_id_fields = ["user", "merged_into"]


@admin.register(Membership)
class MembershipAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["user", "club", "role", "joined_at"]
    list_filter = ["role", "club"]
    search_fields = ["user__username", "club__name"]
    raw_id_fields = ["user"]


@admin.register(Season)
class SeasonAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["name", "club", "start", "end"]
    list_filter = ["club"]


@admin.register(HouseRuleSet)
class HouseRuleSetAdmin(Untouchable, admin.ModelAdmin):
    """Versions are history: they are read here, and added through the club settings page."""

    list_display = ["club", "game", "version", "created_by", "created_at"]
    list_filter = ["game", "club"]
    readonly_fields = ["club", "game", "version", "rules", "created_by", "created_at"]


@admin.register(Invitation)
class InvitationAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["club", "role", "uses", "max_uses", "expires_at", "revoked_at", "created_by"]
    list_filter = ["role", "club"]
    readonly_fields = ["token", "uses"]
    raw_id_fields = ["player", "created_by"]


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "display_name"]
    search_fields = ["user__username", "display_name"]
    raw_id_fields = ["user"]


@admin.register(EmailConfirmation)
class EmailConfirmationAdmin(admin.ModelAdmin):
    """Sign-ups and their confirmation; an admin who trusts an address can activate the
    account on the user's own page."""

    list_display = ["user", "email", "requested_at", "sent_at", "confirmed_at"]
    list_filter = ["confirmed_at"]
    search_fields = ["user__username", "email"]
    readonly_fields = ["user", "email", "language", "requested_at", "sent_at", "confirmed_at"]


# knox registers its own token model, which ApiToken replaces (settings.KNOX_TOKEN_MODEL).
if admin.site.is_registered(KnoxAuthToken):
    admin.site.unregister(KnoxAuthToken)


@admin.register(ApiToken)
class ApiTokenAdmin(Unchangeable, admin.ModelAdmin):
    """API tokens are issued by the API only (their secret is shown once); an admin can see
    and revoke them."""

    list_display = ["user", "device", "created", "last_used", "expiry"]
    search_fields = ["user__username", "device"]
    readonly_fields = ["user", "token_key", "device", "created", "last_used", "expiry"]
    fields = readonly_fields
