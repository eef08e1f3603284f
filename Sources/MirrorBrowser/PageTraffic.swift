import MirrorCrawl
import MirrorLock

/// The requests of the page loading in one tab, as its proxy sees them: how many are in flight
/// (the page is idle once none has been for a quiet time: Chromium's own `networkIdle` comes
/// once per navigation, not after scrolling), and which URLs it loaded.
final class PageTraffic: Sendable {
    private struct State {
        var inFlight = 0
        var lastChange = ContinuousClock.now
        var requested: [String] = []
        var seen: Set<String> = []
        var data: [String] = []
        var count = 0
    }

    /// The most requests one page may make; later ones are refused (an endless stream of requests).
    let limit: Int
    let fetch: PageFetch
    private let state = Locked(State())

    init(limit: Int, fetch: @escaping PageFetch) {
        self.limit = limit
        self.fetch = fetch
    }

    /// Counts a request as started; false when the page has made too many.
    func begin() -> Bool {
        state.withLock { state in
            state.count += 1
            guard state.count <= limit else { return false }
            state.inFlight += 1
            state.lastChange = .now
            return true
        }
    }

    /// Counts a request as over; `loaded` is its URL when it brought a successful response.
    func end(loaded url: String?) {
        state.withLock { state in
            state.inFlight -= 1
            state.lastChange = .now
            if let url, state.seen.insert(url).inserted { state.requested.append(url) }
        }
    }

    /// Notes that `url` brought data (by fetch/XHR, or JSON, XML or text whatever asked for it,
    /// a worker too): the replay layer may have to answer it offline.
    func noteData(_ url: String) {
        state.withLock { state in
            if state.data.count < 500, !state.data.contains(url) { state.data.append(url) }
        }
    }

    var requested: [String] { state.withLock { $0.requested } }
    var data: [String] { state.withLock { $0.data } }
    var requestCount: Int { state.withLock { $0.count } }

    /// Waits until no request has been in flight for `quiet`; false when `deadline` came first.
    func waitIdle(quiet: Duration, deadline: ContinuousClock.Instant) async -> Bool {
        while ContinuousClock.now < deadline {
            let (inFlight, lastChange) = state.withLock { ($0.inFlight, $0.lastChange) }
            if inFlight == 0 && ContinuousClock.now - lastChange >= quiet { return true }
            let wake = min(deadline, inFlight == 0 ? lastChange + quiet : .now + .milliseconds(50))
            do { try await Task.sleep(until: max(wake, .now + .milliseconds(10)), clock: .continuous) } catch { return false }
        }
        return false
    }
}
