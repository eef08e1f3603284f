import MirrorLock
import Testing

@testable import MirrorCrawl

/// `--max-pages` and `--max-pages-per-host`: saved pages fill a limit for good; a page in
/// flight holds its place until it ends, and the next waits for it instead of being skipped.
@Suite("Page budget")
struct PageBudgetTests {
    @Test func aPageWaitsForThoseInFlightAndTakesThePlaceOfOneThatFailed() async throws {
        let budget = PageBudget(maxPages: 2, maxPerHost: nil)
        #expect(await budget.admit(host: "a") == nil)
        #expect(await budget.admit(host: "b") == nil)
        let admitted = Locked(false)
        let third = Task {
            let reason = await budget.admit(host: "c")
            admitted.withLock { $0 = true }
            return reason
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while budget.waiting == 0 && !admitted.withLock({ $0 }) && ContinuousClock.now < deadline {  // until it waits
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(!admitted.withLock { $0 }, "a third page started while two held both places")
        budget.release(host: "a")
        #expect(await third.value == nil)
        budget.saved(host: "b")
        budget.saved(host: "c")
        #expect(await budget.admit(host: "d") == .maxPages)
    }

    @Test func eachHostHasItsOwnLimit() async {
        let budget = PageBudget(maxPages: nil, maxPerHost: 1)
        #expect(await budget.admit(host: "a") == nil)
        #expect(await budget.admit(host: "b") == nil)
        budget.saved(host: "a")
        #expect(await budget.admit(host: "a") == .pagesPerHost)
        budget.release(host: "b")
        #expect(await budget.admit(host: "b") == nil)
    }

    @Test func withoutLimitsEveryPageIsAdmitted() async {
        let budget = PageBudget(maxPages: nil, maxPerHost: nil)
        for _ in 0..<1000 { #expect(await budget.admit(host: "a") == nil) }
    }
}
