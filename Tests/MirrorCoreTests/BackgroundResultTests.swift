import MirrorCore
import MirrorLock
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Work on a thread of its own: the caller goes on while it runs, and gets what it returned or threw.
@Suite("Background results")
struct BackgroundResultTests {
    struct Failed: Error, Equatable {}

    @Test func theCallerGoesOnWhileTheWorkRuns() throws {
        let callerWentOn = Locked(false)
        // The work waits (up to 10 s) for the caller to go on after starting it: run where it
        // was started, it would see nothing and say so.
        let work = BackgroundResult { () -> Bool in
            for _ in 0..<1_000 {
                if callerWentOn.withLock({ $0 }) { return true }
                usleep(10_000)
            }
            return false
        }
        callerWentOn.withLock { $0 = true }
        #expect(try work.value())
        #expect(try work.value(), "asked again, the same value")
    }

    /// What the work holds (a crawl's journal, whose SQLite files close when it goes) is let go
    /// by the time the caller has the value, not when the thread gets round to exiting.
    @Test(arguments: 0..<20) func whatTheWorkHoldsIsLetGoBeforeItsValueIsGiven(_ round: Int) throws {
        final class Held: Sendable {}
        var held: Held? = Held()
        weak let watched = held
        let work = BackgroundResult { [held] in held != nil }
        held = nil
        #expect(try work.value())
        #expect(watched == nil, "round \(round)")
    }

    @Test func whatTheWorkThrowsIsThrownToTheCaller() {
        let work = BackgroundResult { () throws -> Int in throw Failed() }
        #expect(throws: Failed()) { try work.value() }
    }
}
