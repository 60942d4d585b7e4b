from django.contrib import admin

from clubs.admin import ChangesItsClub, Unchangeable, Untouchable
from matches.results.models import AuditEntry, GameRecord, GameSeat, Outcome
from matches.spazzumazz.models import SpazzumazzGame, SpazzumazzPlace
from matches.sputo.models import Entrant, Tournament, TournamentMatch


class PlayersInline(admin.TabularInline):
    """The players of a game or a tournament, one row each."""

    extra = 0
    raw_id_fields = ["player"]


class GameSeatInline(PlayersInline):
    model = GameSeat


@admin.register(GameRecord)
class GameRecordAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["__str__", "club", "game", "played_at", "house_rules"]
    list_filter = ["game", "club"]
    date_hierarchy = "played_at"
    inlines = [GameSeatInline]
    raw_id_fields = ["house_rules", "season"]


@admin.register(Outcome)
class OutcomeAdmin(ChangesItsClub, Unchangeable, admin.ModelAdmin):
    """Read-only: outcomes change only through the result cycle's services."""

    list_display = ["__str__", "club", "content_type", "object_id", "status", "reported_at"]
    list_filter = ["status", "content_type", "club"]
    readonly_fields = [f.name for f in Outcome._meta.fields]


@admin.register(AuditEntry)
class AuditEntryAdmin(Untouchable, admin.ModelAdmin):
    list_display = [
        "at",
        "club",
        "content_type",
        "object_id",
        "action",
        "from_status",
        "to_status",
        "by",
    ]
    list_filter = ["action", "content_type", "club"]
    date_hierarchy = "at"


class SpazzumazzPlaceInline(PlayersInline):
    model = SpazzumazzPlace


@admin.register(SpazzumazzGame)
class SpazzumazzGameAdmin(ChangesItsClub, admin.ModelAdmin):
    list_display = ["__str__", "club", "played_at", "season"]
    list_filter = ["club"]
    date_hierarchy = "played_at"
    inlines = [SpazzumazzPlaceInline]
    raw_id_fields = ["season", "house_rules"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        game = form.instance
        game.places.update(played_at=game.played_at, size=game.size)  # its game's, kept


class EntrantInline(PlayersInline):
    model = Entrant


@admin.register(Tournament)
class TournamentAdmin(ChangesItsClub, admin.ModelAdmin):
    """Tournaments change through their services (pages and API); here they are read."""

    list_display = ["name", "club", "starts_at", "status", "variant", "best_of"]
    list_filter = ["status", "variant", "club"]
    date_hierarchy = "starts_at"
    inlines = [EntrantInline]
    raw_id_fields = ["season", "house_rules"]


@admin.register(TournamentMatch)
class TournamentMatchAdmin(ChangesItsClub, Unchangeable, admin.ModelAdmin):
    """Read-only: results change through the result cycle, seats through the bracket."""

    list_display = ["__str__", "player_a", "player_b", "winner", "result", "needs_resolution"]
    list_filter = ["result", "needs_resolution", "club"]
    readonly_fields = [f.name for f in TournamentMatch._meta.fields]
