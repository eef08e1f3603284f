#ifndef MIRROR_HEAP_H
#define MIRROR_HEAP_H

/// Fixes glibc's mmap and trim thresholds at `bytes` (glibc's <malloc.h> is not part of Swift's
/// Glibc module). Does nothing on other C libraries.
void mirror_fix_heap_thresholds(int bytes);

/// Returns the heap's free pages to the system, in every arena (glibc's malloc_trim): a block
/// freed goes back to the arena it came from, and the free pages below an arena's top are
/// otherwise never handed back. Does nothing on other C libraries.
void mirror_release_free_heap(void);

#endif
