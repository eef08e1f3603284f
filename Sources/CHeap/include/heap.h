#ifndef MIRROR_HEAP_H
#define MIRROR_HEAP_H

/// Fixes glibc's mmap and trim thresholds at `bytes` (glibc's <malloc.h> is not part of Swift's
/// Glibc module). Does nothing on other C libraries.
void mirror_fix_heap_thresholds(int bytes);

/// Limits glibc's arenas to `count` (its default is eight per core): each thread that allocates
/// takes an arena of its own while there are fewer than the limit, and each arena keeps its
/// own free pages. Does nothing on other C libraries.
void mirror_limit_heap_arenas(int count);

/// Returns the heap's free pages to the system, in every arena (glibc's malloc_trim): a block
/// freed goes back to the arena it came from, and the free pages below an arena's top are
/// otherwise never handed back. Does nothing on other C libraries.
void mirror_release_free_heap(void);

#endif
