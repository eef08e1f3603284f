import MirrorLock

/// The pages a crawl may still start under `--max-pages` and `--max-pages-per-host`. A page
/// is counted when it is admitted, before its request, and then either saved or released:
/// workers running at once never overshoot a limit. While the last places are held by pages
/// in flight, the next page waits for them instead of being skipped, so a page that fails (or
/// redirects) leaves its place to another and the crawl does not stop short of the limit.
final class PageBudget: Sendable {
    private struct Count {
        var saved = 0
        var inFlight = 0

        /// Admitted, full (its saved pages reached `limit`), or to wait for those in flight.
        func decision(under limit: Int?) -> Decision {
            guard let limit else { return .admitted }
            if saved >= limit { return .full }
            return saved + inFlight < limit ? .admitted : .wait
        }
    }

    private enum Decision { case admitted, full, wait }

    private struct State {
        var total = Count()
        var perHost: [String: Count] = [:]
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let maxPages: Int?
    private let maxPerHost: Int?
    private let state = Locked(State())

    init(maxPages: Int?, maxPerHost: Int?) {
        self.maxPages = maxPages
        self.maxPerHost = maxPerHost
    }

    /// What `admit` found: the page counted, a limit reached, or places held by pages in flight.
    private enum Outcome {
        case admitted
        case skipped(SkipReason)
        case wait
    }

    /// Counts a page of `host` in flight and returns nil, or returns the limit its saved pages
    /// have reached. Waits while pages in flight hold the last places.
    func admit(host: String) async -> SkipReason? {
        guard maxPages != nil || maxPerHost != nil else { return nil }
        while true {
            var outcome = Outcome.wait
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { state in
                    outcome = take(&state, host: host)
                    if case .wait = outcome { state.waiting.append(continuation) } else { continuation.resume() }
                }
            }
            switch outcome {
            case .admitted: return nil
            case .skipped(let reason): return reason
            case .wait: continue
            }
        }
    }

    /// The calls of `admit` waiting now for a place.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// An admitted page was saved: it counts for good.
    func saved(host: String) { settle(host: host, saved: true) }

    /// An admitted page ended unsaved (failed, skipped, redirected): its place is free again.
    func release(host: String) { settle(host: host, saved: false) }

    private func take(_ state: inout State, host: String) -> Outcome {
        let perHost = maxPerHost == nil ? Count() : state.perHost[host, default: Count()]
        switch (state.total.decision(under: maxPages), perHost.decision(under: maxPerHost)) {
        case (.full, _): return .skipped(.maxPages)
        case (_, .full): return .skipped(.pagesPerHost)
        case (.admitted, .admitted):
            state.total.inFlight += 1
            if maxPerHost != nil { state.perHost[host, default: Count()].inFlight += 1 }
            return .admitted
        default: return .wait
        }
    }

    private func settle(host: String, saved: Bool) {
        guard maxPages != nil || maxPerHost != nil else { return }
        let waiters = state.withLock { state in
            state.total.inFlight -= 1
            if saved { state.total.saved += 1 }
            if maxPerHost != nil {
                state.perHost[host, default: Count()].inFlight -= 1
                if saved { state.perHost[host, default: Count()].saved += 1 }
            }
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for waiter in waiters { waiter.resume() }
    }
}
