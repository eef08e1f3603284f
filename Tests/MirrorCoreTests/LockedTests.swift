import Dispatch
import MirrorLock
import Testing

@Suite struct LockedTests {
    @Test func threadsChangingTheValueTogetherLoseNoChange() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func aLockHeldElsewhereIsNotWaitedFor() {
        let value = Locked("free")
        let inside: String? = value.withLock { _ in
            // The same thread holds it: a waiting lock would never return here.
            value.withLockIfAvailable { _ in "ran" }
        }
        #expect(inside == nil)
        #expect(value.withLockIfAvailable { $0 } == "free")
    }

    @Test func copiesShareTheOneValue() {
        let original = Locked([1])
        let copy = original
        copy.withLock { $0.append(2) }
        #expect(original.withLock { $0 } == [1, 2])
    }

    /// A value is made once per key and kept (a nil made is kept too), and the kept values are
    /// let go together once `limit` of them are held.
    @Test func aMemoizedValueIsMadeOncePerKeyUpToTheLimit() {
        let kept = Locked<[String: Int?]>([:])
        var made = 0
        func value(_ key: String) -> Int? {
            kept.memoized(key, limit: 2) {
                made += 1
                return key == "none" ? nil : key.count
            }
        }
        #expect(value("ab") == 2 && value("ab") == 2 && made == 1)
        #expect(value("none") == nil && value("none") == nil && made == 2)
        #expect(value("abc") == 3 && made == 3)
        #expect(kept.withLock { $0.count } == 1, "emptied when it held two, then the new one kept")
        #expect(value("ab") == 2 && made == 4)
    }
}
