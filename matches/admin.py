from django.contrib import admin

from matches.models import GameRecord, GameSeat


class GameSeatInline(admin.TabularInline):
    model = GameSeat
    extra = 0
    raw_id_fields = ["player"]


@admin.register(GameRecord)
class GameRecordAdmin(admin.ModelAdmin):
    list_display = ["__str__", "club", "game", "played_at", "house_rules"]
    list_filter = ["game", "club"]
    date_hierarchy = "played_at"
    inlines = [GameSeatInline]
    raw_id_fields = ["house_rules", "season"]
