import Dispatch
import MirrorLock

extension Array where Element: Sendable {
    /// What `transform` makes of each run of `size` consecutive elements, the runs spread over
    /// every core (`concurrentPerform`, which also runs them on the caller's thread, so it never
    /// waits for a free one), joined in the elements' order. A run's results are handed over
    /// under a lock once, not once an element.
    public func flatMapRunsOnEveryCore<T: Sendable>(of size: Int, _ transform: @Sendable (ArraySlice<Element>) -> [T]) -> [T] {
        let runs = (count + size - 1) / size
        let made = Locked([[T]](repeating: [], count: runs))
        DispatchQueue.concurrentPerform(iterations: runs) { index in
            let start = index * size
            let values = transform(self[start..<Swift.min(start + size, count)])
            made.withLock { $0[index] = values }
        }
        return made.withLock { $0.flatMap { $0 } }
    }
}
