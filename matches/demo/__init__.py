"""The demo's club nights: one module of this package per game (``sputo_tournaments.py``,
``singapore_tables.py``, ``spazzumazz.py``), each running its game's own demo
(``matches/<game>/demo.py``), found by ``manage.py demo`` on its own (see ``clubs/demo.py``
for the protocol). A new game adds its module here."""
