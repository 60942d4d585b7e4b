"""Simple bot players that produce full, legal records from a seed.

One module per game (``rules.bots.singapore``, ``rules.bots.sputo``,
``rules.bots.spazzumazz``); tests, the demo data and the benchmarks use them.
"""
