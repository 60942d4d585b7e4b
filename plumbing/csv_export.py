"""CSV that a spreadsheet opens as data: every CSV the site writes goes through :func:`writer`.

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or ``|``, ``%``) is a formula to a
spreadsheet: a guest named ``=HYPERLINK("http://evil.example", "click")`` would become a
link, and worse. defusedcsv puts an apostrophe before such a cell, which spreadsheets read as
"this is text". Numbers are data and stay numbers: a ``Decimal`` or ``int`` cell, and a text
cell that is a plain number such as ``-70.00``, are written as they are. A cell that starts
with a tab or a carriage return (OWASP's list; defusedcsv leaves those) gets the apostrophe
too.

``writer(out).writerow(['=HYPERLINK("x")', "-70.00", Decimal("-1.5"), "\\t=1"])`` writes
``"'=HYPERLINK(""x"")",-70.00,-1.5,'\\t=1`` (tests/test_csv_exports.py).
"""

from typing import Any

from defusedcsv import csv as defused

LEADING_WHITESPACE = ("\t", "\r")


def _text(cell: Any) -> Any:
    if isinstance(cell, str) and cell.startswith(LEADING_WHITESPACE):
        return "'" + cell
    return cell


class _Writer:
    def __init__(self, out: Any) -> None:
        self._writer = defused.writer(out)

    def writerow(self, row: Any) -> Any:
        return self._writer.writerow([_text(cell) for cell in row])

    def writerows(self, rows: Any) -> None:
        for row in rows:
            self.writerow(row)


def writer(out: Any) -> _Writer:
    """A ``csv.writer`` (the excel dialect) whose cells a spreadsheet never runs."""
    return _Writer(out)
