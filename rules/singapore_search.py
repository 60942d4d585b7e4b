"""The Singapore arrangement search, on integer card codes.

This is the engine under :mod:`rules.singapore`; it knows nothing of records. A card is an
``int``: a natural card is ``suit * 13 + rank``, with suits in the order S H D C
(0..3) and ranks A..K as 0..12; the joker is :data:`JOKER_CODE` (52).

>>> codes = [code("QS"), code("KS"), code("AS"), code("2S"), code("5H"), code("5D"),
...          code("5C"), code("9D"), code("9D"), code("9C")]
>>> found = search(codes)
>>> found.status, found.combinations
(<Status.CLOSED: 'closed'>, 3)
>>> [[name(c) for c in meld] for meld in found.melds]
[['QS', 'KS', 'AS', '2S'], ['5H', '5D', '5C'], ['9D', '9D', '9C']]
>>> search([code(t) for t in "5H 6H 7H 5H 6H 7H 9S 9H 9D 9C".split()]).status
<Status.SAME_SUIT_SEQUENCES: 'same_suit_sequences'>

How it is fast enough (a pure-Python engine that must check well over 100,000 hands a
second, see ``benchmarks/bench_singapore.py``):

* **One sum per hand.** Every card code maps to a precomputed big integer holding, in
  separate bit fields, a 2-bit count in a *rank-major* region (8 bits per rank, one field
  per suit), a 2-bit count in a *suit-major* region padded with wrapped copies of the
  ranks at both ends (so that the circular neighbours of a card are one contiguous bit
  window), and a joker counter. ``sum(map(BITS.__getitem__, codes))`` builds all of it in C.
* **Fast rejection.** A card that can be in no combination at all (no suit neighbour close
  enough, no rank-mates) makes the hand hopeless. Two table look-ups per card (its
  neighbour window, its rank's block) decide it; most dealt hands fail at the first card.
* **A structural search instead of a tree search.** A closing is some sets plus at most one
  sequence per suit, and a sequence holds one copy of each of its ranks. So the search
  chooses, per rank, which suits send one card to their suit's sequence (the rest form
  that rank's set); each suit's chosen ranks must then fit one circular run, with jokers
  for the gaps. Ranks with a single possible choice (the usual case) are folded in once;
  only the others are enumerated, and each suit's run is a table look-up on its 13-bit
  pattern. Jokers are counted, not placed, until the best choice is known.
* **Tables built lazily and kept** (per house-rule joker limit and joker count): an honest
  memo, since it depends on nothing but the rank's cards.

The plain tree search :func:`reference_min_combinations` (enumerate every combination
through the lowest card) is kept as the oracle the tests compare against, and answers the
rarer question the structural search cannot: whether a hand would close if two sequences
of one suit were allowed (``same_suit_sequences`` rather than ``not_closed``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from itertools import product
from typing import Literal

JokerLimit = Literal["half", "one", "free"]

JOKER_CODE = 52
SUIT_LETTERS = "SHDC"
RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_LIMITS: tuple[JokerLimit, ...] = ("half", "one", "free")


def code(token: str) -> int:
    """The code of a canonical card token (``"QS"`` -> 11, ``"JK"`` -> 52)."""
    return _CODES[token]


def name(card_code: int) -> str:
    """The canonical token of a card code."""
    return _NAMES[card_code]


_NAMES: tuple[str, ...] = (
    *(rank + suit for suit in SUIT_LETTERS for rank in RANK_SYMBOLS),
    "JK",
)
_CODES = {token: index for index, token in enumerate(_NAMES)}


class Status(Enum):
    """What the search found for a closer's hand."""

    CLOSED = "closed"
    #: Full arrangements exist, but each holds two sequences of one suit.
    SAME_SUIT_SEQUENCES = "same_suit_sequences"
    NOT_CLOSED = "not_closed"


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The best arrangement of a hand: the fewest combinations (a 10-card sequence is
    always a single combination, so "a 10-card sequence first" needs no separate rule)."""

    status: Status
    #: The best arrangement's combinations, each a tuple of codes (sequences in rank order
    #: with their jokers in place, sets by suit with jokers last); empty unless closed.
    melds: tuple[tuple[int, ...], ...] = ()

    @property
    def combinations(self) -> int:
        return len(self.melds)

    @property
    def closed(self) -> bool:
        return self.status is Status.CLOSED


_NOT_CLOSED = SearchResult(Status.NOT_CLOSED)
_SAME_SUIT = SearchResult(Status.SAME_SUIT_SEQUENCES)

# ---------------------------------------------------------------------------------------
# Bit layout of a hand's sum (see the module docstring).

_RANK_REGION = 0  # 13 blocks of 8 bits: the 2-bit count of (rank, suit) at 8*rank + 2*suit
_SUIT_REGION = 104  # 4 segments of 40 bits: 19 two-bit fields, ranks -3..15 (wrapped)
_SUIT_SEGMENT = 40
_JOKER_SHIFT = 264


def _bits(card_code: int) -> int:
    if card_code == JOKER_CODE:
        return 1 << _JOKER_SHIFT
    suit, rank = divmod(card_code, 13)
    value = 1 << (_RANK_REGION + 8 * rank + 2 * suit)
    base = _SUIT_REGION + _SUIT_SEGMENT * suit
    value += 1 << (base + 2 * (rank + 3))
    if rank >= 10:
        value += 1 << (base + 2 * (rank - 10))
    if rank <= 2:
        value += 1 << (base + 2 * (rank + 16))
    return value


BITS: tuple[int, ...] = tuple(_bits(c) for c in range(53))
#: Shift of a natural card's 7-field neighbour window (ranks r-3..r+3 of its suit).
_WINDOW_SHIFT: tuple[int, ...] = tuple(
    _SUIT_REGION + _SUIT_SEGMENT * (c // 13) + 2 * (c % 13) for c in range(52)
)
#: Shift of a natural card's rank block.
_BLOCK_SHIFT: tuple[int, ...] = tuple(8 * (c % 13) for c in range(52))


def _field_counts(window: int, fields: int) -> list[int]:
    return [(window >> (2 * i)) & 3 for i in range(fields)]


def _window_table(reach: int, pairs: bool) -> bytes:
    """For every 7-field window: can its centre card be in some sequence?

    ``pairs``: no jokers, so two neighbours are needed (r-2 r-1, r-1 r+1 or r+1 r+2);
    otherwise one natural neighbour within ``reach`` ranks is enough (jokers fill the rest).
    Field ``i`` of a window is held when bit ``2 * i`` of ``(window | window >> 1) & 0x1555``
    is set (the card itself is field 3), so each window is a few bit tests.
    """
    if pairs:
        wanted = (0x014, 0x110, 0x500)  # fields 1 and 2, 2 and 4, 4 and 5
        return bytes(
            any(held & pair == pair for pair in wanted)
            for held in ((window | window >> 1) & 0x1555 for window in range(1 << 14))
        )
    near = 0x514 if reach == 2 else 0x1515  # fields 1 2 4 5, and 0 6 for a reach of 3
    assert reach in (2, 3)
    return bytes((window | window >> 1) & near != 0 for window in range(1 << 14))


def _block_table(threshold: int) -> bytes:
    """For every rank block: does the rank hold at least ``threshold`` cards?"""
    return bytes(sum(_field_counts(block, 4)) >= threshold for block in range(256))


@cache
def _filter_tables(limit: JokerLimit, jokers: int) -> tuple[bytes, bytes] | None:
    """The isolated-card test's tables for this joker limit and joker count, or ``None``
    when no card can be isolated (``free`` with two jokers: one card and two jokers is a
    set)."""
    if jokers == 0:
        return _window_table(2, pairs=True), _block_table(3)
    if jokers >= 2 and limit == "free":
        return None
    # With jokers a combination needs two naturals (one under "free" is a set only with
    # two jokers, excluded above). Two jokers in one sequence: naturals up to 3 apart.
    reach = 3 if jokers >= 2 and limit == "half" else 2
    return _window_table(reach, pairs=False), _block_table(2)


# ---------------------------------------------------------------------------------------
# Per-suit run tables: a suit's 13-bit pattern of ranks sent to its one sequence.


def _covering(pattern: int) -> tuple[int, int]:
    """The shortest circular interval holding every rank of ``pattern``: (length, start)."""
    best = (14, 0)
    for start in range(13):
        rotated = ((pattern >> start) | (pattern << (13 - start))) & 0x1FFF
        if rotated & 1:
            best = min(best, (rotated.bit_length(), start))
    return best


_SPAN: list[int] = [0] * 8192
_START: list[int] = [0] * 8192
_NATURALS: list[int] = [0] * 8192
for _pattern in range(1, 8192):
    _SPAN[_pattern], _START[_pattern] = _covering(_pattern)
    _NATURALS[_pattern] = _pattern.bit_count()
del _pattern


def _sequence_tables(limit: JokerLimit) -> tuple[list[int], list[int]]:
    """Per suit pattern: jokers a sequence of it needs (-1: impossible) and how many more
    it could hold."""
    needs = [-1] * 8192
    spares = [0] * 8192
    for pattern in range(1, 8192):
        naturals = _NATURALS[pattern]
        if naturals < 2:  # one natural with jokers is a set, never a sequence
            continue
        need = max(3, _SPAN[pattern]) - naturals
        room = 13 - naturals
        if limit == "half":
            cap = min(naturals, room)
        elif limit == "one":
            cap = min(1, room)
        else:
            cap = room
        if need <= cap:
            needs[pattern] = need
            spares[pattern] = cap - need
    return needs, spares


def _leftover_set(limit: str, left: int, jokers: int) -> tuple[int, int, int] | None:
    """The set made of a rank's ``left`` natural cards not sent to sequences, under ``limit``:
    (jokers it needs to reach 3 cards, jokers it could still take, extra sets it may split
    into), or None when it cannot be made with ``jokers`` jokers."""
    need = max(0, 3 - left)
    if limit == "half":
        ok, cap, splits = need <= left, left, 0
    elif limit == "one":
        ok, cap, splits = need <= 1, 1, int(left >= 4)
    else:
        ok, cap, splits = True, 99, 0
    if ok and need <= jokers:
        return need, cap - need, splits
    return None


_SEQUENCE_TABLES = {limit: _sequence_tables(limit) for limit in _LIMITS}

# ---------------------------------------------------------------------------------------
# Per-rank options: which suits send a card to their sequence, and what is left as a set.

#: An option: (pattern bits, jokers needed, spare joker room, splits, combinations,
#: suits sent to sequences (4-bit mask), cards left for the set).
Option = tuple[int, int, int, int, int, int, int]
_SPLIT_MORE = 1  # under "one", splitting a set in two takes one more joker


def _add_option(
    options: list[Option], pattern: int, mask: int, left: int, limit: JokerLimit, jokers: int
) -> None:
    """Add the option of sending ``pattern`` (suits ``mask``) to sequences, the ``left``
    cards of the rank making a set (with jokers, as ``limit`` allows), if they can."""
    if left == 0:
        options.append((pattern, 0, 0, 0, 0, mask, 0))
        return
    leftover = _leftover_set(limit, left, jokers)
    if leftover is not None:
        options.append((pattern, *leftover, 1, mask, left))


def _rank_options(limit: JokerLimit, jokers: int, rank: int, block: int) -> tuple[Option, ...]:
    """A rank's options: those of its block at rank 0 (see :func:`_block_options`), with
    the pattern bits moved to the rank."""
    if rank == 0:
        return _block_options(limit, jokers, block)
    return tuple(
        (option[0] << rank, *option[1:]) for option in _block_options(limit, jokers, block)
    )


@cache
def _block_options(limit: JokerLimit, jokers: int, block: int) -> tuple[Option, ...]:
    """The options of a rank's block of cards, with the pattern bits at rank 0: nothing
    else in an option depends on the rank."""
    counts = _field_counts(block, 4)
    total = sum(counts)
    present = [suit for suit in range(4) if counts[suit]]
    options: list[Option] = []
    for mask in range(16):
        if any(mask >> suit & 1 and not counts[suit] for suit in range(4)):
            continue
        sent = [suit for suit in present if mask >> suit & 1]
        left = total - len(sent)
        pattern = sum(1 << (16 * suit) for suit in sent)
        _add_option(options, pattern, mask, left, limit, jokers)
    return tuple(options)


class _RankTable:
    """Lazily filled options per (rank, block) for one joker limit and joker count."""

    __slots__ = ("limit", "jokers", "table")

    def __init__(self, limit: JokerLimit, jokers: int) -> None:
        self.limit: JokerLimit = limit
        self.jokers = jokers
        self.table: list[tuple[Option, ...] | None] = [None] * (13 * 256)

    def get(self, rank: int, block: int) -> tuple[Option, ...]:
        options = self.table[rank * 256 + block]
        if options is None:
            options = _rank_options(self.limit, self.jokers, rank, block)
            self.table[rank * 256 + block] = options
        return options


_RANK_TABLES = {
    (limit, jokers): _RankTable(limit, jokers) for limit in _LIMITS for jokers in range(3)
}

# ---------------------------------------------------------------------------------------
# The search.


def closes(codes: Sequence[int], limit: JokerLimit = "half") -> bool:
    """Whether the hand can be arranged entirely into combinations, one sequence per suit
    at most. ``codes`` holds at most two copies of a natural card and at most two jokers.

    >>> closes([code(t) for t in "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S".split()])
    True
    >>> closes([code(t) for t in "AS 2S 3S 4S 5S 6S 7S 8S 9S JH".split()])
    False
    """
    total = sum(map(BITS.__getitem__, codes))
    jokers = total >> _JOKER_SHIFT
    if not _may_close(codes, total, limit, jokers):
        return False
    return _best_choice(total, limit, jokers) is not None


def search(codes: Sequence[int], limit: JokerLimit = "half") -> SearchResult:
    """The best arrangement of a closer's hand (fewest combinations), or why there is none.

    ``codes`` holds at most two copies of a natural card and at most two jokers (the
    game's two decks); any number of cards is searched, though a closing has 10.
    """
    total = sum(map(BITS.__getitem__, codes))
    jokers = total >> _JOKER_SHIFT
    if not jokers:
        # The isolated-card test inlined for the common joker-free hand: most dealt hands
        # stop at their first card.
        windows, blocks = _PLAIN_FILTER
        for card in codes:
            if (
                not windows[(total >> _WINDOW_SHIFT[card]) & 0x3FFF]
                and not blocks[(total >> _BLOCK_SHIFT[card]) & 0xFF]
            ):
                return _NOT_CLOSED
    if not jokers or _may_close(codes, total, limit, jokers):
        best = _best_choice(total, limit, jokers)
        if best is not None:
            return SearchResult(Status.CLOSED, _build_melds(total, limit, jokers, best))
        # Every card has partners, yet no arrangement with one sequence per suit exists:
        # ask the tree search whether one with two sequences of a suit would.
        if _closes_relaxed(total, limit, jokers):
            return _SAME_SUIT
    return _NOT_CLOSED


_PLAIN_FILTER = _filter_tables("half", 0) or (b"", b"")  # the same for every joker limit


def _may_close(codes: Sequence[int], total: int, limit: JokerLimit, jokers: int) -> bool:
    """False when some card can be in no combination at all."""
    tables = _filter_tables(limit, jokers) if jokers <= 2 else None
    if tables is None:
        return jokers <= 2 or len(codes) > jokers
    windows, blocks = tables
    window_shift = _WINDOW_SHIFT
    block_shift = _BLOCK_SHIFT
    for card in codes:
        if card == JOKER_CODE:
            continue
        if (
            not windows[(total >> window_shift[card]) & 0x3FFF]
            and not blocks[(total >> block_shift[card]) & 0xFF]
        ):
            return False
    return jokers == 0 or _jokers_may_cover(codes, total, limit, jokers)


def _jokers_may_cover(codes: Sequence[int], total: int, limit: JokerLimit, jokers: int) -> bool:
    """False when the cards that can be in no joker-free combination cannot all go into
    the (at most ``jokers``) combinations that hold a joker: each of those is one rank, or
    one suit."""
    tables = _filter_tables(limit, 0)
    assert tables is not None
    windows, blocks = tables
    lonely = {
        card
        for card in codes
        if card != JOKER_CODE
        and not windows[(total >> _WINDOW_SHIFT[card]) & 0x3FFF]
        and not blocks[(total >> _BLOCK_SHIFT[card]) & 0xFF]
    }
    return _groups_needed(lonely) <= jokers


def _groups_needed(cards: set[int]) -> int:
    """How few groups, each of one rank or of one suit, hold ``cards`` (at most 3 counted)."""
    if not cards:
        return 0
    if len({c % 13 for c in cards}) == 1 or len({c // 13 for c in cards}) == 1:
        return 1
    first = min(cards)
    for group in (
        {c for c in cards if c % 13 == first % 13},
        {c for c in cards if c // 13 == first // 13},
    ):
        rest = cards - group
        if len({c % 13 for c in rest}) == 1 or len({c // 13 for c in rest}) == 1:
            return 2
    return 3


_Choice = tuple[tuple[int, Option], ...]


def _barred_suits(block: int, rank: int, total: int, windows: bytes) -> int:
    """The suits (a bit each) whose card of ``rank`` in ``block`` has no neighbours for a
    sequence in ``total``: a card goes to its suit's sequence only if it has."""
    barred = 0
    for suit in range(4):
        if (
            block >> (2 * suit) & 3
            and not windows[(total >> _WINDOW_SHIFT[suit * 13 + rank]) & 0x3FFF]
        ):
            barred |= 1 << suit
    return barred


def _best_choice(total: int, limit: JokerLimit, jokers: int) -> _Choice | None:
    """The per-rank options of the arrangement with the fewest combinations."""
    if jokers > 2:
        return None
    ranks = _RANK_TABLES[limit, jokers]
    table = ranks.table
    support = _filter_tables(limit, jokers)
    windows = support[0] if support is not None else None
    fixed: list[tuple[int, Option]] = []
    free: list[tuple[int, tuple[Option, ...]]] = []
    base_pattern = base_need = base_spare = base_splits = base_combos = 0
    blocks = total & ((1 << 104) - 1)
    rank = 0
    while blocks:
        block = blocks & 0xFF
        if block:
            options = table[rank * 256 + block] or ranks.get(rank, block)
            if len(options) > 1 and windows is not None:
                barred = _barred_suits(block, rank, total, windows)
                if barred:
                    options = tuple(option for option in options if not option[5] & barred)
            if len(options) == 1:
                option = options[0]
                fixed.append((rank, option))
                base_pattern += option[0]
                base_need += option[1]
                base_spare += option[2]
                base_splits += option[3]
                base_combos += option[4]
            elif options:
                free.append((rank, options))
            else:
                return None
        blocks >>= 8
        rank += 1
    if base_need > jokers:
        return None
    needs, spares = _SEQUENCE_TABLES[limit]
    best: tuple[Option, ...] | None = None
    best_combos = 99
    for picked in product(*(options for _, options in free)) if free else ((),):
        pattern, need, spare, splits, combos = (
            base_pattern,
            base_need,
            base_spare,
            base_splits,
            base_combos,
        )
        for option in picked:
            pattern += option[0]
            need += option[1]
            spare += option[2]
            splits += option[3]
            combos += option[4]
        if need > jokers or combos >= best_combos:
            continue
        while pattern:
            run = pattern & 0x1FFF
            if run:
                more = needs[run]
                if more < 0:
                    break
                need += more
                spare += spares[run]
                combos += 1
            pattern >>= 16
        else:
            if need > jokers:
                continue
            extra = jokers - need
            if extra > spare:
                if extra - spare > splits:
                    continue
                combos += extra - spare
            if combos < best_combos:
                best, best_combos = picked, combos
                if combos == 1:
                    break
    if best is None:
        return None
    return (*fixed, *((rank, option) for (rank, _), option in zip(free, best, strict=True)))


def _build_melds(
    total: int, limit: JokerLimit, jokers: int, choice: _Choice
) -> tuple[tuple[int, ...], ...]:
    """The melds of a chosen arrangement, with every joker placed."""
    needs, spares = _SEQUENCE_TABLES[limit]
    pattern = 0
    extra = jokers
    set_jokers: dict[int, int] = {}
    for rank, option in choice:
        pattern += option[0]
        if option[6]:
            set_jokers[rank] = option[1]
            extra -= option[1]
    runs: list[tuple[int, int, int]] = []  # (suit, run, jokers)
    suit = 0
    while pattern:
        run = pattern & 0x1FFF
        if run:
            runs.append((suit, run, needs[run]))
            extra -= needs[run]
        pattern >>= 16
        suit += 1
    split: set[int] = set()
    if extra:  # jokers beyond every need: extend sequences, grow sets, split sets
        for index, (suit, run, held) in enumerate(runs):
            add = min(extra, spares[run])
            runs[index] = (suit, run, held + add)
            extra -= add
        for rank, option in choice:
            if option[6] and extra:
                add = min(extra, option[2])
                set_jokers[rank] += add
                extra -= add
        for rank, option in choice:
            if option[6] and extra and option[3]:
                set_jokers[rank] += 1
                split.add(rank)
                extra -= 1
    sequences = sorted((-_NATURALS[run] - held, suit, run, held) for suit, run, held in runs)
    melds = [_sequence_meld(suit, run, held) for _, suit, run, held in sequences]
    for rank, option in sorted(choice):
        if option[6]:
            block = (total >> (8 * rank)) & 0xFF
            if rank in split:
                naturals = _set_meld(rank, block, option[5], 0)
                melds.append((*naturals[:2], JOKER_CODE))
                melds.append((*naturals[2:], JOKER_CODE))
            else:
                melds.append(_set_meld(rank, block, option[5], set_jokers[rank]))
    return tuple(melds)


@cache
def _sequence_meld(suit: int, run: int, jokers: int) -> tuple[int, ...]:
    """A suit's sequence from the start of its shortest covering interval, jokers in
    the gaps and then past the end."""
    start = _START[run]
    cards = []
    for step in range(_NATURALS[run] + jokers):
        rank = (start + step) % 13
        cards.append(suit * 13 + rank if run >> rank & 1 else JOKER_CODE)
    return tuple(cards)


@cache
def _set_meld(rank: int, block: int, sent: int, jokers: int) -> tuple[int, ...]:
    """A rank's set: its cards not sent to sequences, by suit, then the jokers."""
    naturals: list[int] = []
    for suit in range(4):
        copies = ((block >> (2 * suit)) & 3) - (sent >> suit & 1)
        naturals.extend([suit * 13 + rank] * copies)
    return (*naturals, *[JOKER_CODE] * jokers)


# ---------------------------------------------------------------------------------------
# The relaxed search: would the hand close if a suit could hold several sequences?
# The same structure, except that a rank may send both copies of a card to its suit's
# sequences, and each suit's cards (up to two of a rank: 2 bits per rank, 32 per suit)
# are split into runs by a small memoised search per suit pattern.

_INF = 99
_RELAXED_OPTIONS: dict[tuple[JokerLimit, int, int, int], tuple[Option, ...]] = {}
_RUN_COSTS: dict[tuple[JokerLimit, int], tuple[int, int, int]] = {}


def _relaxed_options(limit: JokerLimit, jokers: int, rank: int, block: int) -> tuple[Option, ...]:
    """Like :func:`_rank_options`, but each suit may send 0, 1 or 2 copies to sequences;
    an option's pattern holds the copies sent (2-bit fields) and its mask the suits
    sending any."""
    key = (limit, jokers, rank, block)
    found = _RELAXED_OPTIONS.get(key)
    if found is not None:
        return found
    counts = _field_counts(block, 4)
    total = sum(counts)
    options: list[Option] = []
    for sent in product(*(range(n + 1) for n in counts)):
        left = total - sum(sent)
        pattern = sum(n << (32 * suit + 2 * rank) for suit, n in enumerate(sent))
        mask = sum(1 << suit for suit, n in enumerate(sent) if n)
        _add_option(options, pattern, mask, left, limit, jokers)
    _RELAXED_OPTIONS[key] = result = tuple(options)
    return result


def _run_costs(limit: JokerLimit, pattern: int) -> tuple[int, int, int]:
    """Fewest runs holding a suit's cards (2-bit counts per rank) using exactly 0, 1 or
    2 jokers (``_INF`` when impossible)."""
    key = (limit, pattern)
    found = _RUN_COSTS.get(key)
    if found is None:
        counts = _field_counts(pattern, 13)
        found = tuple(_fewest_runs(limit, counts, jokers, {}) for jokers in range(3))  # type: ignore[assignment]
        _RUN_COSTS[key] = found  # type: ignore[assignment]
    return found  # type: ignore[return-value]


def _fewest_runs(
    limit: JokerLimit, counts: list[int], jokers: int, memo: dict[tuple[tuple[int, ...], int], int]
) -> int:
    key = (tuple(counts), jokers)
    if key in memo:
        return memo[key]
    first = next((rank for rank in range(13) if counts[rank]), None)
    if first is None:
        return 0 if jokers == 0 else _INF
    best = _INF
    counts[first] -= 1
    distinct = sum(1 for n in counts if n) + 1
    for length in range(3, min(13, distinct + jokers) + 1):
        for offset in range(length):
            start = (first - offset) % 13
            others = [(start + i) % 13 for i in range(length) if i != offset]
            if sum(1 for r in others if not counts[r]) > jokers:
                continue
            for use in product(*((True, False) if counts[r] else (False,) for r in others)):
                used_jokers = len(others) - sum(use)
                naturals = 1 + sum(use)
                if used_jokers > jokers or naturals < 2:
                    continue
                if not _limit_ok(limit, naturals, used_jokers):
                    continue
                taken = [r for r, u in zip(others, use, strict=True) if u]
                for r in taken:
                    counts[r] -= 1
                best = min(best, 1 + _fewest_runs(limit, counts, jokers - used_jokers, memo))
                for r in taken:
                    counts[r] += 1
    counts[first] += 1
    memo[key] = best
    return best


def _closes_relaxed(total: int, limit: JokerLimit, jokers: int) -> bool:
    """Whether the hand closes when a suit may hold several sequences."""
    if jokers > 2:
        return False
    support = _filter_tables(limit, jokers)
    windows = support[0] if support is not None else None
    choices: list[tuple[Option, ...]] = []
    blocks = total & ((1 << 104) - 1)
    rank = 0
    while blocks:
        block = blocks & 0xFF
        if block:
            options = _relaxed_options(limit, jokers, rank, block)
            if len(options) > 1 and windows is not None:
                barred = _barred_suits(block, rank, total, windows)
                options = tuple(option for option in options if not option[5] & barred)
            if not options:
                return False
            choices.append(options)
        blocks >>= 8
        rank += 1
    for picked in product(*choices):
        pattern = need = spare = splits = 0
        for option in picked:
            pattern += option[0]
            need += option[1]
            spare += option[2]
            splits += option[3]
        if need > jokers:
            continue
        # Jokers beyond the sets' needs: the sets hold up to need + spare (+ splits under
        # "one"); the rest go to the suits' runs, in any split between suits.
        reachable = {0}
        while pattern:
            run = pattern & 0xFFFFFFFF
            if run:
                costs = _run_costs(limit, run)
                reachable = {
                    used + more
                    for used in reachable
                    for more in range(3)
                    if costs[more] < _INF and used + more <= jokers
                }
                if not reachable:
                    break
            pattern >>= 32
        else:
            for used in reachable:
                left = jokers - used
                if need <= left <= need + spare + splits:
                    return True
    return False


# ---------------------------------------------------------------------------------------
# The reference tree search: slow, plain, and the oracle of the tests.


def combination_kind(cards: Iterable[int], limit: JokerLimit) -> Literal["set", "sequence"] | None:
    """Whether ``cards`` (in any order) form a valid set or sequence under ``limit``.

    >>> combination_kind([code("QH"), code("QH"), code("QS")], "half")
    'set'
    >>> combination_kind([code("KS"), code("AS"), code("2S")], "half")
    'sequence'
    >>> combination_kind([code("5H"), code("JK"), code("JK")], "half") is None
    True
    """
    cards = list(cards)
    naturals = [c for c in cards if c != JOKER_CODE]
    jokers = len(cards) - len(naturals)
    if len(cards) < 3 or not naturals:
        return None
    if limit == "half" and jokers > len(naturals):
        return None
    if limit == "one" and jokers > 1:
        return None
    if len({c % 13 for c in naturals}) == 1:
        return "set"
    if len(naturals) < 2 or len({c // 13 for c in naturals}) != 1 or len(cards) > 13:
        return None
    ranks = {c % 13 for c in naturals}
    if len(ranks) != len(naturals):
        return None
    pattern = sum(1 << rank for rank in ranks)
    return "sequence" if _SPAN[pattern] <= len(cards) else None


def _limit_ok(limit: JokerLimit, naturals: int, jokers: int) -> bool:
    if limit == "half":
        return jokers <= naturals
    if limit == "one":
        return jokers <= 1
    return naturals >= 1


def reference_min_combinations(
    codes: Sequence[int], limit: JokerLimit = "half", *, same_suit_rule: bool = True
) -> int | None:
    """The fewest combinations of a full arrangement by plain tree search, or ``None``.

    With ``same_suit_rule=False`` two sequences of one suit are allowed (the question
    that tells ``same_suit_sequences`` from ``not_closed``).
    """
    counts = [0] * 52
    jokers = 0
    for card in codes:
        if card == JOKER_CODE:
            jokers += 1
        else:
            counts[card] += 1
    memo: dict[tuple[tuple[int, ...], int, int], int | None] = {}

    def solve(jokers: int, used_suits: int) -> int | None:
        key = (tuple(counts), jokers, used_suits)
        if key in memo:
            return memo[key]
        first = next((c for c in range(52) if counts[c]), None)
        if first is None:
            result: int | None = 0 if jokers == 0 else None
            memo[key] = result
            return result
        best: int | None = None
        suit, rank = divmod(first, 13)
        counts[first] -= 1
        # Sets through the first card: any sub-multiset of its rank-mates, plus jokers.
        mates = [s * 13 + rank for s in range(4)]
        for take in product(*(range(counts[m] + 1) for m in mates)):
            naturals = 1 + sum(take)
            for m, n in zip(mates, take, strict=True):
                counts[m] -= n
            for used_jokers in range(jokers + 1):
                if naturals + used_jokers >= 3 and _limit_ok(limit, naturals, used_jokers):
                    rest = solve(jokers - used_jokers, used_suits)
                    if rest is not None and (best is None or rest + 1 < best):
                        best = rest + 1
            for m, n in zip(mates, take, strict=True):
                counts[m] += n
        # Sequences through the first card, each other position a natural or a joker.
        if not (same_suit_rule and used_suits >> suit & 1):
            distinct = sum(1 for r in range(13) if counts[suit * 13 + r]) + 1
            for length in range(3, min(13, distinct + jokers) + 1):
                for offset in range(length):
                    start = (rank - offset) % 13
                    others = [(start + i) % 13 for i in range(length) if i != offset]
                    if sum(1 for r in others if not counts[suit * 13 + r]) > jokers:
                        continue
                    choices = [(True, False) if counts[suit * 13 + r] else (False,) for r in others]
                    for use in product(*choices):
                        used_jokers = len(others) - sum(use)
                        naturals = 1 + sum(use)
                        if used_jokers > jokers or naturals < 2:
                            continue
                        if not _limit_ok(limit, naturals, used_jokers):
                            continue
                        taken = [suit * 13 + r for r, u in zip(others, use, strict=True) if u]
                        for c in taken:
                            counts[c] -= 1
                        rest = solve(jokers - used_jokers, used_suits | 1 << suit)
                        for c in taken:
                            counts[c] += 1
                        if rest is not None and (best is None or rest + 1 < best):
                            best = rest + 1
        counts[first] += 1
        memo[key] = best
        return best

    return solve(jokers, 0)
