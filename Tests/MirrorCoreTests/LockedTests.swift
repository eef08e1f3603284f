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
}
