"""Each Spazz'u'mazz place keeps its game's time, indexed by player: a player's games are
read in order a page at a time."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0008_inbox"),
        ("matches", "0014_outcome_club_confirmed"),
    ]

    operations = [
        migrations.AddField(
            model_name="spazzumazzplace",
            name="played_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, editable=False, verbose_name="played"
            ),
        ),
        # Each place takes its game's time (one statement, on SQLite and PostgreSQL alike).
        migrations.RunSQL(
            "UPDATE matches_spazzumazzplace SET played_at = ("
            "SELECT g.played_at FROM matches_spazzumazzgame g WHERE g.id = game_id)",
            migrations.RunSQL.noop,
        ),
        migrations.AddIndex(
            model_name="spazzumazzplace",
            index=models.Index(
                fields=["player", "played_at", "game"], name="matches_spa_player__fb9553_idx"
            ),
        ),
    ]
