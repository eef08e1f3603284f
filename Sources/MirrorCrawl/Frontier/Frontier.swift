import MirrorCore
import MirrorLock

/// The breadth-first queue of URLs to fetch, with global and per-host concurrency limits
/// and per-host politeness. Workers call `next()` and `finished(_:)` around each item,
/// `fetched(_:)` once its requests are over (its host's slot is then free while the page is
/// parsed and saved), and `waitTurn(_:)` before each request they send (robots.txt, the URL,
/// each retry), which spaces a host's requests by its delay (`--delay`, or robots.txt
/// `Crawl-delay` when longer): a host with a delay has one request in flight at a time, each
/// starting a delay after the previous one's start and after its end.
/// Until a host's robots.txt is known, one item of that host at a time is handed out, so
/// robots.txt is the first request to every host, page requisites' hosts included.
///
/// Each host has its own FIFO queue (breadth-first within the host); `next()` walks the hosts
/// in the order they first had work, so its cost grows with the number of hosts, not URLs.
///
/// Time comes from `clock`: a crawl's is the continuous clock, a test's one it moves itself.
final class Frontier<Clock: _Concurrency.Clock<Duration>>: Sendable {
    private struct HostQueue {
        var items = ChunkedArray<CrawlItem>()
        var head = 0
        var active = 0
        /// When the last request that waited its turn ended (robots.txt's, until it is known).
        var lastEnd: Clock.Instant?
        var nextStart: Clock.Instant?
        /// Whether a request that waited its turn has not ended yet (`requestEnded(_:)`).
        var requestInFlight = false
        /// Requests waiting for that one to end.
        var waitingForEnd: [CheckedContinuation<Void, Never>] = []
        var delay: Double
        var robotsKnown: Bool

        var isEmpty: Bool { head == items.endIndex }

        var delayDuration: Duration { .milliseconds(Int(delay * 1000)) }

        /// The next request starts at `instant` at the earliest, or later if already booked so.
        mutating func postpone(to instant: Clock.Instant) {
            nextStart = max(nextStart ?? instant, instant)
        }

        mutating func pop() -> CrawlItem {
            let item = items[head]
            head += 1
            items.removeChunks(before: head)
            return item
        }
    }

    private struct State {
        var hosts: [String: HostQueue] = [:]
        /// Items handed out whose host slot `fetched(_:)` gave back before they finished.
        var fetchedItems: Set<String> = []
        /// Hosts with queued items, in the order they got them.
        var order: [String] = []
        var seen: Set<String> = []
        var active = 0
        var queuedCount = 0
        /// Calls of `next()` waiting for an item or a free slot.
        var waiting: [CheckedContinuation<Void, Never>] = []
        var stopped = false

        /// Takes the waiting calls of `next()`, to be resumed once the lock is let go: each looks again.
        mutating func takeWaiting() -> [CheckedContinuation<Void, Never>] {
            defer { waiting.removeAll() }
            return waiting
        }
    }

    /// What `next()` does after a look at the queues.
    private enum Step {
        case handOut(CrawlItem?)
        case sleep(until: Clock.Instant)
        case wait
    }

    /// What `waitTurn(_:)` does after a look at its host.
    private enum Turn {
        case booked(spaced: Bool)
        case sleep(until: Clock.Instant)
        case waitForEnd
    }

    private let state = Locked(State())
    private let perHost: Int
    private let defaultDelay: Double
    private let robotsFirst: Bool
    private let clock: Clock

    /// - Parameter robotsFirst: hand out one item per host until `robotsKnown` is called for it.
    init(perHost: Int, delay: Double, robotsFirst: Bool, clock: Clock) {
        self.clock = clock
        self.perHost = max(1, perHost)
        self.defaultDelay = delay
        self.robotsFirst = robotsFirst
    }

    private func newQueue() -> HostQueue { HostQueue(delay: defaultDelay, robotsKnown: !robotsFirst) }

    /// Marks URLs as known; for each, false when it already was (so it is never queued twice).
    func markSeen(_ urls: [String]) -> [Bool] {
        state.withLock { state in urls.map { state.seen.insert($0).inserted } }
    }

    /// Whether `url` was marked seen.
    func isSeen(_ url: String) -> Bool { state.withLock { $0.seen.contains(url) } }

    /// Queues items whose URLs were marked seen.
    func enqueue(_ items: [CrawlItem]) {
        change { state in
            for item in items {
                let host = CrawlItem.host(of: item.url)
                if state.hosts[host] == nil { state.hosts[host] = newQueue() }
                if state.hosts[host]!.isEmpty { state.order.append(host) }
                state.hosts[host]!.items.append(item)
                state.queuedCount += 1
            }
            return true
        }
    }

    /// Items still queued (for the journal and the progress line).
    var pendingCount: Int { state.withLock { $0.queuedCount } }

    /// `host`'s robots.txt is known: its other items may start, `crawlDelay` apart at least.
    func robotsKnown(_ host: String, crawlDelay: Double?) {
        change { state in
            var queue = state.hosts[host] ?? newQueue()
            guard !queue.robotsKnown else { return false }
            queue.robotsKnown = true
            queue.delay = max(crawlDelay ?? 0, defaultDelay)
            // The robots.txt request itself is the last one: the new delay counts from it.
            if let last = queue.lastEnd { queue.postpone(to: last.advanced(by: queue.delayDuration)) }
            state.hosts[host] = queue
            return true
        }
    }

    /// Waits until `host` may receive another request, and books that moment. True when the
    /// request's end matters to the spacing (a delay, or robots.txt not known yet, whose
    /// Crawl-delay counts from it): `requestEnded(_:)` must then follow the request, and until
    /// it does no other request to `host` starts. Spaced from the start alone, two requests in
    /// flight at once could reach the origin closer than the delay (the first slow to arrive:
    /// a new connection, a busy machine).
    func waitTurn(_ host: String) async -> Bool {
        while !Task.isCancelled {
            var turn = Turn.waitForEnd
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { state in
                    turn = lookAtTurn(&state, host: host)
                    if case .waitForEnd = turn { state.hosts[host]!.waitingForEnd.append(continuation) } else { continuation.resume() }
                }
            }
            switch turn {
            case .booked(let spaced): return spaced
            case .sleep(let start): try? await clock.sleep(until: start, tolerance: nil)
            case .waitForEnd: continue
            }
        }
        return state.withLock { book(&$0, host: host) }
    }

    /// Books `host`'s next request now if its turn has come, else says what to wait for.
    private func lookAtTurn(_ state: inout State, host: String) -> Turn {
        if state.hosts[host] == nil { state.hosts[host] = newQueue() }
        let queue = state.hosts[host]!
        if queue.requestInFlight && (queue.delay > 0 || !queue.robotsKnown) { return .waitForEnd }
        if let start = queue.nextStart, start > clock.now { return .sleep(until: start) }
        return .booked(spaced: book(&state, host: host))
    }

    /// Books `host`'s next request now; true when it is spaced (see `waitTurn(_:)`).
    private func book(_ state: inout State, host: String) -> Bool {
        var queue = state.hosts[host] ?? newQueue()
        let spaced = queue.delay > 0 || !queue.robotsKnown
        if queue.delay > 0 { queue.postpone(to: clock.now.advanced(by: queue.delayDuration)) }
        if spaced { queue.requestInFlight = true }
        state.hosts[host] = queue
        return spaced
    }

    /// A request to `host` that waited its turn has been answered (or failed): the next one may
    /// start, a delay after this moment too.
    func requestEnded(_ host: String) {
        let waiters = state.withLock { state in
            var queue = state.hosts[host] ?? newQueue()
            let now = clock.now
            queue.lastEnd = now
            if queue.delay > 0 { queue.postpone(to: now.advanced(by: queue.delayDuration)) }
            queue.requestInFlight = false
            let waiters = queue.waitingForEnd
            queue.waitingForEnd.removeAll()
            state.hosts[host] = queue
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops handing out work: `next()` returns nil from now on.
    func stop() {
        change { state in
            state.stopped = true
            return true
        }
    }

    /// Forgets every URL seen and queued, once the workers are done: finishing the folder is the
    /// crawl's peak of memory and needs neither (at 100,000 URLs the set's table is 4 MB).
    func forget() {
        state.withLock { state in
            state.seen = []
            state.hosts = [:]
            state.order = []
            state.fetchedItems = []
        }
    }

    /// The next item whose host has a free slot and whose delay has passed; waits when none
    /// is ready yet; nil when the queue is empty and no fetch is running (the crawl is done).
    func next() async -> CrawlItem? {
        while !Task.isCancelled {
            var step = Step.wait
            var others: [CheckedContinuation<Void, Never>] = []
            // The look and the wait are one step under the lock: an item queued or a slot freed
            // between them would otherwise wake no one.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { state in
                    step = take(&state)
                    switch step {
                    case .wait: state.waiting.append(continuation)
                    case .handOut(nil):
                        // The crawl is done (or stopped) for the others waiting too.
                        others = state.takeWaiting()
                        continuation.resume()
                    case .handOut, .sleep: continuation.resume()
                    }
                }
            }
            for waiter in others { waiter.resume() }
            switch step {
            case .handOut(let item): return item
            case .sleep(let earliest): try? await clock.sleep(until: earliest, tolerance: nil)
            case .wait: continue
            }
        }
        return nil
    }

    /// Hands out the next item whose host may take it, or says how long to wait for one.
    private func take(_ state: inout State) -> Step {
        if state.stopped { return .handOut(nil) }
        let now = clock.now
        var earliest: Clock.Instant?
        for host in state.order {
            guard var queue = state.hosts[host], !queue.isEmpty, queue.active < (queue.robotsKnown ? perHost : 1) else { continue }
            if let start = queue.nextStart, start > now {
                earliest = min(earliest ?? start, start)
                continue
            }
            let item = queue.pop()
            queue.active += 1
            state.hosts[host] = queue
            if queue.isEmpty { state.order.removeAll { $0 == host } }
            state.active += 1
            state.queuedCount -= 1
            return .handOut(item)
        }
        if state.queuedCount == 0 && state.active == 0 { return .handOut(nil) }
        if let earliest { return .sleep(until: earliest) }
        return .wait
    }

    /// The requests of an item handed out by `next()` are over: its host may take another item
    /// while this one is still being worked on (the per-host limit is on requests in flight,
    /// and parsing a page costs more than fetching it from a nearby origin).
    func fetched(_ item: CrawlItem) {
        change { state in
            guard state.fetchedItems.insert(item.url).inserted else { return false }
            state.hosts[CrawlItem.host(of: item.url)]?.active -= 1
            return true
        }
    }

    /// An item handed out by `next()` is over.
    func finished(_ item: CrawlItem) {
        change { state in
            state.active -= 1
            if state.fetchedItems.remove(item.url) == nil { state.hosts[CrawlItem.host(of: item.url)]?.active -= 1 }
            return true
        }
    }

    /// Changes the state under the lock; when `change` returns true (an item queued, a slot
    /// freed, the crawl stopped), each waiting `next()` is resumed once the lock is let go, to
    /// look again.
    private func change(_ change: (inout State) -> Bool) {
        let waiters = state.withLock { state in change(&state) ? state.takeWaiting() : [] }
        for waiter in waiters { waiter.resume() }
    }
}
