#ifndef MIRROR_HEAP_H
#define MIRROR_HEAP_H

/// Fixes glibc's mmap and trim thresholds at `bytes` (glibc's <malloc.h> is not part of Swift's
/// Glibc module). Does nothing on other C libraries.
void mirror_fix_heap_thresholds(int bytes);

#endif
