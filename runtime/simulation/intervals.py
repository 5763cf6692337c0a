"""Intervals of shares: light enough for a pack's checks to import (no games, no policies)."""

from __future__ import annotations

import math


def share_interval(count: int, total: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of a share at `z` standard deviations (2.576 for 99 %)."""
    if total == 0:
        return 0.0, 1.0
    share = count / total
    scale = 1 + z * z / total
    middle = (share + z * z / (2 * total)) / scale
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / scale
    return max(0.0, middle - half), min(1.0, middle + half)
