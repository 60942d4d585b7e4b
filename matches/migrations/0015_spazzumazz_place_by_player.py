"""Each Spazz'u'mazz place keeps its game's time and size, indexed by player: a player's
games are read in order a page at a time, and the charts from the index alone."""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('clubs', '0008_inbox'),
        ('matches', '0014_outcome_club_confirmed'),
    ]

    operations = [
        migrations.AddField(
            model_name='spazzumazzplace',
            name='played_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='played'),
        ),
        migrations.AddField(
            model_name='spazzumazzplace',
            name='size',
            field=models.PositiveSmallIntegerField(default=0, editable=False, verbose_name='players'),
        ),
        # Each place takes its game's time and size (one statement, on SQLite and PostgreSQL).
        migrations.RunSQL(
            "UPDATE matches_spazzumazzplace SET "
            "played_at = (SELECT g.played_at FROM matches_spazzumazzgame g WHERE g.id = game_id), "
            "size = (SELECT g.size FROM matches_spazzumazzgame g WHERE g.id = game_id)",
            migrations.RunSQL.noop,
        ),
        migrations.AddIndex(
            model_name='spazzumazzplace',
            index=models.Index(condition=models.Q(('place__isnull', False)), fields=['player', 'played_at', 'game', 'place', 'size'], name='spazzumazz_place_by_player'),
        ),
    ]
