"""What English and Italian write alike (the long dates, in words, day first; the time on
24 hours; the week from Monday) and the date-time inputs both read first: what
``<input type=datetime-local>`` sends, then ISO. Each language's ``formats`` module takes
these and adds its own short dates, ways of typing a date, and separators."""

DATE_FORMAT = "l j F Y"  # Friday 4 December 2026
TIME_FORMAT = "H:i"  # 21:30
DATETIME_FORMAT = "l j F Y, H:i"  # Friday 4 December 2026, 21:30
YEAR_MONTH_FORMAT = "F Y"  # December 2026
MONTH_DAY_FORMAT = "j F"  # 4 December
FIRST_DAY_OF_WEEK = 1  # Monday
NUMBER_GROUPING = 3

ISO_DATETIME_INPUT_FORMATS = [
    "%Y-%m-%dT%H:%M",  # what <input type=datetime-local> sends
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
]
