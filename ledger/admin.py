"""The ledger in Django's admin: read only. Postings, payments and erasures go through
``ledger.services`` (the database refuses to rewrite entries anyway)."""

from django.contrib import admin

from clubs.admin import Untouchable
from ledger.models import CheckRun, Entry, Erasure, Leg, Payment, Transaction


class ReadOnly(Untouchable, admin.ModelAdmin):
    pass


class ReadOnlyInline(Untouchable, admin.TabularInline):
    """Rows of a transaction."""

    extra = 0


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = ["player", "amount_minor"]
    readonly_fields = fields


class LegInline(ReadOnlyInline):
    model = Leg
    fields = ["debtor", "creditor", "amount_minor"]
    readonly_fields = fields


@admin.register(Transaction)
class TransactionAdmin(ReadOnly):
    list_display = ["key", "club", "unit", "scope", "kind", "n_legs", "at", "created_by"]
    list_filter = ["kind", "unit", "club"]
    search_fields = ["key", "source", "memo", "scope"]
    date_hierarchy = "at"
    inlines = [EntryInline, LegInline]


@admin.register(Payment)
class PaymentAdmin(ReadOnly):
    list_display = ["__str__", "club", "status", "recorded_by", "recorded_at", "decided_at"]
    list_filter = ["status", "unit", "club"]


@admin.register(Erasure)
class ErasureAdmin(ReadOnly):
    list_display = ["club_name", "club_id", "by", "started_at", "finished_at", "transactions"]


@admin.register(CheckRun)
class CheckRunAdmin(ReadOnly):
    list_display = ["at", "ok", "counts"]
    list_filter = ["ok"]
