"""What this machine allows a run: memory for its buffers."""

from __future__ import annotations

import os


def check_memory(what: str, bytes_needed: int) -> None:
    """Refuse a buffer that cannot fit in this machine's memory, before allocating it (ValueError)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not every system reports it
        return
    if bytes_needed > 0.8 * total:
        raise ValueError(
            f"{what} would take {bytes_needed / 1e9:.1f} GB, more than 80% of this machine's {total / 1e9:.1f} GB"
        )
