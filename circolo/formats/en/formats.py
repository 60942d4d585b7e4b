"""English dates without the US order: "Friday 4 December 2026", 4 Dec 2026; numbers as
1,234.50.

Date inputs (``<input type=date>``) send and need ISO dates: ISO is read first, then the
day-first ways of typing one (never month first).
"""

DATE_FORMAT = "l j F Y"  # Friday 4 December 2026
TIME_FORMAT = "H:i"  # 21:30
DATETIME_FORMAT = "l j F Y, H:i"  # Friday 4 December 2026, 21:30
YEAR_MONTH_FORMAT = "F Y"  # December 2026
MONTH_DAY_FORMAT = "j F"  # 4 December
SHORT_DATE_FORMAT = "j M Y"  # 4 Dec 2026
SHORT_DATETIME_FORMAT = "j M Y, H:i"  # 4 Dec 2026, 21:30
FIRST_DAY_OF_WEEK = 1  # Monday

DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d %b %Y", "%d %B %Y"]
DATETIME_INPUT_FORMATS = [
    "%Y-%m-%dT%H:%M",  # what <input type=datetime-local> sends
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%d/%m/%Y %H:%M",
]
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
