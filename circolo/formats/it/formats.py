"""Italian dates and numbers as Italians write them: "venerdì 4 dicembre 2026", 04/12/2026,
1.234,50 (the long dates, the time and the week as in English: ``circolo/formats/common.py``).
The day and month names are lower case (our catalogue overrides Django's capitalised ones,
see ``circolo/formats/names.py``).

Date inputs (``<input type=date>``) send and need ISO dates: ISO is read first, then the
Italian ways of typing one.
"""

from circolo.formats.common import *  # noqa: F403 (Django reads the shared formats from here)
from circolo.formats.common import ISO_DATETIME_INPUT_FORMATS

SHORT_DATE_FORMAT = "d/m/Y"  # 04/12/2026
SHORT_DATETIME_FORMAT = "d/m/Y H:i"  # 04/12/2026 21:30

DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y", "%d-%m-%Y"]
DATETIME_INPUT_FORMATS = [*ISO_DATETIME_INPUT_FORMATS, "%d/%m/%Y %H:%M:%S", "%d/%m/%Y %H:%M"]
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "."
