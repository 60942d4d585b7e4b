"""Each Sputo entrant's final place, kept on its row: filled in for the tournaments already
finished, from their brackets (``matches.sputo.bracket.standings``, a pure function)."""

from django.db import migrations, models

from matches.sputo import bracket


def fill_places(apps, schema_editor):
    Tournament = apps.get_model("matches", "Tournament")
    Entrant = apps.get_model("matches", "Entrant")
    for tournament in Tournament.objects.filter(status="finished").iterator():
        slots = [
            bracket.Slot(
                id=m.pk,
                kind=m.kind,
                round=m.round,
                position=m.position,
                a=m.player_a_id,
                b=m.player_b_id,
                winner=m.winner_id,
                result=m.result,
                needs_resolution=m.needs_resolution,
            )
            for m in tournament.matches.all()
        ]
        places = {
            player: place
            for place, player, _reached in bracket.standings(slots, rounds=tournament.rounds)
        }
        entrants = list(Entrant.objects.filter(tournament=tournament))
        for entrant in entrants:
            entrant.place = places.get(entrant.player_id)
        Entrant.objects.bulk_update(entrants, ["place"])


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0015_spazzumazz_place_by_player'),
    ]

    operations = [
        migrations.AddField(
            model_name='entrant',
            name='place',
            field=models.PositiveIntegerField(blank=True, editable=False, null=True, verbose_name='final place'),
        ),
        migrations.RunPython(fill_places, migrations.RunPython.noop),
    ]
