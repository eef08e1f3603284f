import MirrorCore

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
actor Frontier<Clock: _Concurrency.Clock<Duration>> {
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

    private var hosts: [String: HostQueue] = [:]
    /// Items handed out whose host slot `fetched(_:)` gave back before they finished.
    private var fetchedItems: Set<String> = []
    /// Hosts with queued items, in the order they got them.
    private var order: [String] = []
    private var seen: Set<String> = []
    private var active = 0
    private var queuedCount = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let perHost: Int
    private let defaultDelay: Double
    private let robotsFirst: Bool
    private let clock: Clock
    private var stopped = false

    /// - Parameter robotsFirst: hand out one item per host until `robotsKnown` is called for it.
    init(perHost: Int, delay: Double, robotsFirst: Bool, clock: Clock) {
        self.clock = clock
        self.perHost = max(1, perHost)
        self.defaultDelay = delay
        self.robotsFirst = robotsFirst
    }

    private func newQueue() -> HostQueue { HostQueue(delay: defaultDelay, robotsKnown: !robotsFirst) }

    /// Marks URLs as known; for each, false when it already was (so it is never queued twice).
    /// One call per page, not per link: each actor hop costs more than the set insertion.
    func markSeen(_ urls: [String]) -> [Bool] {
        urls.map { seen.insert($0).inserted }
    }

    /// Whether `url` was marked seen.
    func isSeen(_ url: String) -> Bool { seen.contains(url) }

    /// Queues items whose URLs were marked seen.
    func enqueue(_ items: [CrawlItem]) {
        for item in items { enqueue(item) }
    }

    /// Queues an item whose URL was marked seen.
    func enqueue(_ item: CrawlItem) {
        let host = CrawlItem.host(of: item.url)
        if hosts[host] == nil { hosts[host] = newQueue() }
        if hosts[host]!.isEmpty { order.append(host) }
        hosts[host]!.items.append(item)
        queuedCount += 1
        wake()
    }

    /// Items still queued (for the journal and the progress line).
    var pendingCount: Int { queuedCount }

    /// `host`'s robots.txt is known: its other items may start, `crawlDelay` apart at least.
    func robotsKnown(_ host: String, crawlDelay: Double?) {
        var queue = hosts[host] ?? newQueue()
        if !queue.robotsKnown {
            queue.robotsKnown = true
            queue.delay = max(crawlDelay ?? 0, defaultDelay)
            // The robots.txt request itself is the last one: the new delay counts from it.
            if let last = queue.lastEnd { queue.postpone(to: last.advanced(by: queue.delayDuration)) }
            hosts[host] = queue
            wake()
        }
    }

    /// Waits until `host` may receive another request, and books that moment. True when the
    /// request's end matters to the spacing (a delay, or robots.txt not known yet, whose
    /// Crawl-delay counts from it): `requestEnded(_:)` must then follow the request, and until
    /// it does no other request to `host` starts. Spaced from the start alone, two requests in
    /// flight at once could reach the origin closer than the delay (the first slow to arrive:
    /// a new connection, a busy machine).
    func waitTurn(_ host: String) async -> Bool {
        if hosts[host] == nil { hosts[host] = newQueue() }
        while !Task.isCancelled {
            let queue = hosts[host]!
            if queue.requestInFlight && (queue.delay > 0 || !queue.robotsKnown) {
                await withCheckedContinuation { hosts[host]!.waitingForEnd.append($0) }
            } else if let start = queue.nextStart, start > clock.now {
                try? await clock.sleep(until: start, tolerance: nil)
            } else {
                break
            }
        }
        let queue = hosts[host]!
        let spaced = queue.delay > 0 || !queue.robotsKnown
        if queue.delay > 0 { hosts[host]!.postpone(to: clock.now.advanced(by: queue.delayDuration)) }
        if spaced { hosts[host]!.requestInFlight = true }
        return spaced
    }

    /// A request to `host` that waited its turn has been answered (or failed): the next one may
    /// start, a delay after this moment too.
    func requestEnded(_ host: String) {
        var queue = hosts[host] ?? newQueue()
        let now = clock.now
        queue.lastEnd = now
        if queue.delay > 0 { queue.postpone(to: now.advanced(by: queue.delayDuration)) }
        queue.requestInFlight = false
        let waiters = queue.waitingForEnd
        queue.waitingForEnd.removeAll()
        hosts[host] = queue
        for waiter in waiters { waiter.resume() }
    }

    /// Stops handing out work: `next()` returns nil from now on.
    func stop() {
        stopped = true
        wake()
    }

    /// Forgets every URL seen and queued, once the workers are done: finishing the folder is the
    /// crawl's peak of memory and needs neither (at 100,000 URLs the set's table is 4 MB).
    func forget() {
        seen = []
        hosts = [:]
        order = []
        fetchedItems = []
    }

    /// The next item whose host has a free slot and whose delay has passed; waits when none
    /// is ready yet; nil when the queue is empty and no fetch is running (the crawl is done).
    func next() async -> CrawlItem? {
        while !stopped && !Task.isCancelled {
            let now = clock.now
            var earliest: Clock.Instant?
            for host in order {
                guard var queue = hosts[host], !queue.isEmpty, queue.active < (queue.robotsKnown ? perHost : 1) else { continue }
                if let start = queue.nextStart, start > now {
                    earliest = min(earliest ?? start, start)
                    continue
                }
                let item = queue.pop()
                queue.active += 1
                hosts[host] = queue
                if queue.isEmpty { order.removeAll { $0 == host } }
                active += 1
                queuedCount -= 1
                return item
            }
            if queuedCount == 0 && active == 0 {
                wake()
                return nil
            }
            if let earliest {
                try? await clock.sleep(until: earliest, tolerance: nil)
            } else {
                await withCheckedContinuation { waiting.append($0) }
            }
        }
        return nil
    }

    /// The requests of an item handed out by `next()` are over: its host may take another item
    /// while this one is still being worked on (the per-host limit is on requests in flight,
    /// and parsing a page costs more than fetching it from a nearby origin).
    func fetched(_ item: CrawlItem) {
        guard fetchedItems.insert(item.url).inserted else { return }
        hosts[CrawlItem.host(of: item.url)]?.active -= 1
        wake()
    }

    /// An item handed out by `next()` is over.
    func finished(_ item: CrawlItem) {
        active -= 1
        if fetchedItems.remove(item.url) == nil { hosts[CrawlItem.host(of: item.url)]?.active -= 1 }
        wake()
    }

    private func wake() {
        let waiters = waiting
        waiting.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}
