"""Keep freed memory in the training process.

Every training step of an averaging encoder allocates its embedding table's dense gradient
afresh (24 MB for SP 20k at dim 300) and frees it at the next ``zero_grad``. glibc's
``malloc`` serves such a block from ``mmap`` and gives it back to the kernel when it is freed,
or trims it off the top of the heap, so every step pays a page fault per 4 KB page of the new
gradient (about 6,000 a step) before PyTorch even fills it. :func:`keep_freed_memory` raises
the ``mmap`` threshold to glibc's largest (32 MB) and the trim threshold to 512 MB: the block
is reused from the heap, with no new pages, step after step (``benchmarks/train_speed.py``).
The trained numbers do not change; the process keeps up to 512 MB it has freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_MAX = 32 * 2**20      # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
TRIM = 512 * 2**20


def keep_freed_memory() -> bool:
    """Set glibc's ``mallopt`` thresholds as above; whether it took effect (``False`` on a
    C library without ``mallopt``, such as macOS's or musl's)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = bool(mallopt(M_MMAP_THRESHOLD, MMAP_MAX)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM))
    if not ok:
        log.debug("mallopt refused the thresholds; freed memory is returned as usual")
    return ok
