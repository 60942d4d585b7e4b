"""The demo's Spazz'u'mazz: about 60 games over two seasons' club nights, through the result
cycle (``matches/spazzumazz/demo.py``), so that the statistics, the charts and the renamed
game show."""

from clubs.demo import Demo
from matches.spazzumazz import demo as spazzumazz_demo


def build(demo: Demo) -> None:
    spazzumazz_demo.build(demo)
