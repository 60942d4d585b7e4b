"""English dates without the US order: "Friday 4 December 2026", 4 Dec 2026; numbers as
1,234.50 (the long dates, the time and the week as in Italian: ``circolo/formats/common.py``).

Date inputs (``<input type=date>``) send and need ISO dates: ISO is read first, then the
day-first ways of typing one (never month first).
"""

from circolo.formats.common import *  # noqa: F403 (Django reads the shared formats from here)
from circolo.formats.common import ISO_DATETIME_INPUT_FORMATS

SHORT_DATE_FORMAT = "j M Y"  # 4 Dec 2026
SHORT_DATETIME_FORMAT = "j M Y, H:i"  # 4 Dec 2026, 21:30

DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d %b %Y", "%d %B %Y"]
DATETIME_INPUT_FORMATS = [*ISO_DATETIME_INPUT_FORMATS, "%d/%m/%Y %H:%M"]
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
