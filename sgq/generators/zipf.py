"""Zipf (power-law) rank samplers in O(1) time and memory per draw, with no tables.

A rank `r` in `[0, n)` is drawn with probability roughly proportional to `1 / (r + 1) ** s`
by inverting the continuous (bounded Pareto) distribution on `[1, n + 1)`: one `random()` and
one `exp`/`**` per draw. Skewed activity ("few users are very active") is what makes the
SO and SNB streams hard for PATH and PATTERN (thesis Ch. 4.5.1), so every generator uses it.

>>> import random
>>> draw = zipf_sampler(1000, 1.0, random.Random(1).random)
>>> all(0 <= draw() < 1000 for _ in range(1000))
True
"""

from __future__ import annotations

from collections.abc import Callable
from math import exp, log


def zipf_sampler(n: int, s: float, random: Callable[[], float]) -> Callable[[], int]:
    """A function drawing ranks in `[0, n)`; `s = 0` is uniform, larger `s` is more skewed."""
    if n < 1:
        raise ValueError("zipf_sampler needs n >= 1")
    if s <= 0.0:
        return lambda: int(random() * n)
    if s == 1.0:
        ln = log(n + 1)
        # exp(u * ln(n + 1)) lies in [1, n + 1); min() guards the float rounding at the top.
        return lambda: min(int(exp(random() * ln)) - 1, n - 1)
    a = 1.0 - s
    top = (n + 1) ** a - 1.0
    inv = 1.0 / a
    return lambda: min(int((top * random() + 1.0) ** inv) - 1, n - 1)


def scramble(n: int) -> Callable[[int], int]:
    """A bijection on `[0, n)` (multiply by a unit mod n) so that busy ranks get scattered ids."""
    a = 2654435761 % n if n > 1 else 1
    while n > 1 and _gcd(a, n) != 1:
        a += 1
    return lambda r: (r * a + 7) % n


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a
