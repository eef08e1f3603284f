/// The breadth-first queue of URLs to fetch, with global and per-host concurrency limits
/// and per-host delays. Workers call `next()` and `finished(_:)` around each fetch.
actor Frontier {
    private var queue: [CrawlItem] = []
    private var head = 0
    private var seen: Set<String> = []
    private var active = 0
    private var activePerHost: [String: Int] = [:]
    private var nextStart: [String: ContinuousClock.Instant] = [:]
    private var delays: [String: Double] = [:]
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let perHost: Int
    private let defaultDelay: Double
    private var stopped = false

    init(perHost: Int, delay: Double) {
        self.perHost = max(1, perHost)
        self.defaultDelay = delay
    }

    /// Marks `url` as known; false when it already was (so it is never queued twice).
    func markSeen(_ url: String) -> Bool {
        seen.insert(url).inserted
    }

    func isSeen(_ url: String) -> Bool { seen.contains(url) }

    /// Queues an item whose URL was marked seen.
    func enqueue(_ item: CrawlItem) {
        queue.append(item)
        wake()
    }

    /// Items still queued, oldest first (for the journal when a crawl stops early).
    var pending: [CrawlItem] { Array(queue[head...]) }

    /// Sets the wait between two requests to `host` (robots Crawl-delay).
    func setDelay(_ seconds: Double, for host: String) {
        delays[host] = max(seconds, defaultDelay)
    }

    /// Stops handing out work: `next()` returns nil from now on.
    func stop() {
        stopped = true
        wake()
    }

    /// The next item whose host has a free slot and whose delay has passed; waits when none
    /// is ready yet; nil when the queue is empty and no fetch is running (the crawl is done).
    func next() async -> CrawlItem? {
        while !stopped && !Task.isCancelled {
            let now = ContinuousClock.now
            var earliest: ContinuousClock.Instant?
            var index = head
            let scanEnd = min(queue.count, head + 2000)
            while index < scanEnd {
                let host = Self.host(of: queue[index].url)
                if activePerHost[host, default: 0] < perHost {
                    if let start = nextStart[host], start > now {
                        earliest = min(earliest ?? start, start)
                    } else {
                        return take(at: index, host: host, now: now)
                    }
                }
                index += 1
            }
            if head == queue.count && active == 0 {
                wake()
                return nil
            }
            if let earliest {
                try? await Task.sleep(until: earliest, clock: .continuous)
            } else {
                await withCheckedContinuation { waiting.append($0) }
            }
        }
        return nil
    }

    /// A fetch handed out by `next()` is over.
    func finished(_ item: CrawlItem) {
        active -= 1
        let host = Self.host(of: item.url)
        activePerHost[host, default: 1] -= 1
        wake()
    }

    private func take(at index: Int, host: String, now: ContinuousClock.Instant) -> CrawlItem {
        let item = queue[index]
        if index == head {
            head += 1
        } else {
            queue.remove(at: index)
        }
        if head > 4096 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        active += 1
        activePerHost[host, default: 0] += 1
        let delay = delays[host] ?? defaultDelay
        if delay > 0 { nextStart[host] = now + .milliseconds(Int(delay * 1000)) }
        return item
    }

    private func wake() {
        let waiters = waiting
        waiting.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// `scheme://host:port` of a normalized URL: the politeness key.
    static func host(of url: String) -> String {
        guard let start = url.range(of: "://") else { return url }
        let rest = url[start.upperBound...]
        return String(url[..<start.upperBound]) + String(rest.prefix { $0 != "/" && $0 != "?" })
    }
}
