"""The end-of-evening report e-mails sent (who wants them: ``Membership.night_report``)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from clubs.models import Club, ClubOwnedQuerySet


class NightReport(models.Model):
    """A club night's report, e-mailed once: the unique row makes a second send a no-op."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    day = models.DateField(_("club night"))
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    recipients = models.PositiveIntegerField(_("recipients"), default=0)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "-day"]
        verbose_name = _("end-of-evening report")
        verbose_name_plural = _("end-of-evening reports")
        constraints = [
            models.UniqueConstraint(fields=["club", "day"], name="night_report_once_per_night")
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.day}"
