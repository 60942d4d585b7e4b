"""The demo's Singapore tables (``matches/singapore/demo.py``): two finished sessions and one
running, through the tables' services and the ledger."""

from matches.singapore.demo import build

__all__ = ["build"]
