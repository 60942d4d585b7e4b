"""The browser's own date pickers, in every language: ``<input type=date>`` and
``type=datetime-local`` show a value only when it is ISO (2026-12-04, 2026-12-04T21:30)
and send it back ISO, whatever the page's language. Without the fixed format Django would
write the language's date (04/12/2026 in Italian), which the browser drops: the field
looked empty and the form failed.
"""

from django import forms


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%d")


class DateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, attrs=None):
        super().__init__(attrs=attrs, format="%Y-%m-%dT%H:%M")
