"""The demo's Sputo tournaments (``matches/sputo/demo.py``): a finished 13-player knockout
and a running 8-player one, with ratings."""

from matches.sputo.demo import build

__all__ = ["build"]
