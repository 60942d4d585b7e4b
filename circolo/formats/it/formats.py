"""Italian dates and numbers as Italians write them: "venerdì 4 dicembre 2026", 04/12/2026,
1.234,50. The day and month names are lower case (our catalogue overrides Django's
capitalised ones, see ``circolo/formats/names.py``).

Date inputs (``<input type=date>``) send and need ISO dates: ISO is read first, then the
Italian ways of typing one.
"""

DATE_FORMAT = "l j F Y"  # venerdì 4 dicembre 2026
TIME_FORMAT = "H:i"  # 21:30
DATETIME_FORMAT = "l j F Y, H:i"  # venerdì 4 dicembre 2026, 21:30
YEAR_MONTH_FORMAT = "F Y"  # dicembre 2026
MONTH_DAY_FORMAT = "j F"  # 4 dicembre
SHORT_DATE_FORMAT = "d/m/Y"  # 04/12/2026
SHORT_DATETIME_FORMAT = "d/m/Y H:i"  # 04/12/2026 21:30
FIRST_DAY_OF_WEEK = 1  # lunedì

DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y", "%d-%m-%Y"]
DATETIME_INPUT_FORMATS = [
    "%Y-%m-%dT%H:%M",  # what <input type=datetime-local> sends
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
]
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "."
NUMBER_GROUPING = 3
