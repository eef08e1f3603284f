import CHeap

/// Fixes glibc's thresholds for handing memory back to the system at 128 KB, their defaults.
/// glibc raises both to the size of each large block freed (up to 32 MB), so once a crawl's
/// per-URL tables had doubled and the old ones were freed, every block up to that size came
/// from the heap and stayed with the process after it was freed: the crawl of 100,000 pages
/// peaked at 186 MB instead of 168 MB, python3.11-doc at 60–63 MB instead of 56 MB, and both
/// spent more CPU time (BENCHMARKS.md, fourteenth session).
enum HeapTuning {
    static func apply() {
        mirror_fix_heap_thresholds(128 * 1024)
    }
}
