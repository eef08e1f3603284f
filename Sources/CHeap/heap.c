#include "heap.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc
#ifdef __GLIBC__
#include <malloc.h>
#endif

void mirror_fix_heap_thresholds(int bytes) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, bytes);
    mallopt(M_TRIM_THRESHOLD, bytes);
#else
    (void)bytes;
#endif
}

void mirror_limit_heap_arenas(int count) {
#ifdef __GLIBC__
    mallopt(M_ARENA_MAX, count);
#else
    (void)count;
#endif
}

void mirror_release_free_heap(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
