from django.contrib import admin

from plumbing.outbox.models import Message


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("id", "task", "created_at", "due_at", "attempts", "done_at", "last_error")
    list_filter = ("task", ("done_at", admin.EmptyFieldListFilter))
    search_fields = ("task", "last_error")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in Message._meta.fields]

    def has_add_permission(self, request):
        return False
