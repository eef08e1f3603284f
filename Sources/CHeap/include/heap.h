#ifndef MIRROR_HEAP_H
#define MIRROR_HEAP_H

/// Fixes glibc's mmap and trim thresholds at `bytes` (glibc's <malloc.h> is not part of Swift's
/// Glibc module). Does nothing on other C libraries.
void mirror_fix_heap_thresholds(int bytes);

/// Returns the heap's free pages to the system, in every arena (glibc's malloc_trim): memory a
/// thread freed is otherwise kept for that thread's arena. Does nothing on other C libraries.
void mirror_release_free_heap(void);

#endif
