import MirrorLock
import MirrorTestSupport
import Testing

@testable import MirrorCrawl

/// The frontier's politeness on a clock the test moves: a host's requests a delay apart, from
/// the previous one's start and from its end, and robots.txt's Crawl-delay counted from the
/// robots.txt request. Nothing sleeps: a turn not come yet waits on the manual clock.
@Suite("Frontier politeness", .timeLimit(.minutes(TestTiming.minutes(10))))
struct FrontierTests {
    let clock = ManualClock()
    let host = "http://example.org:80"

    func item(_ path: String) -> CrawlItem {
        CrawlItem(url: host + path, depth: 0, role: .page, hops: 0, referrer: nil)
    }

    @Test func aHostsRequestsAreADelayApart() async {
        let frontier = Frontier(perHost: 4, delay: 1, robotsFirst: false, clock: clock)
        #expect(await frontier.waitTurn(host) == true)
        frontier.requestEnded(host)
        let turned = Locked(false)
        let second = Task {
            let spaced = await frontier.waitTurn(host)
            turned.withLock { $0 = true }
            return spaced
        }
        await clock.untilSleeping()
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleepers == 1 && !turned.withLock { $0 }, "the second request started before the delay")
        clock.advance(by: .milliseconds(1))
        #expect(await second.value == true)
    }

    @Test func theDelayCountsFromTheEndOfASlowRequest() async {
        let frontier = Frontier(perHost: 4, delay: 1, robotsFirst: false, clock: clock)
        _ = await frontier.waitTurn(host)
        // The first request takes 3 s: the second waits for its end, then a delay after it.
        clock.advance(by: .seconds(3))
        let turned = Locked(false)
        let second = Task {
            _ = await frontier.waitTurn(host)
            turned.withLock { $0 = true }
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(clock.sleepers == 0 && !turned.withLock { $0 }, "the second request started while the first was in flight")
        frontier.requestEnded(host)
        await clock.untilSleeping()
        #expect(!turned.withLock { $0 })
        clock.advance(by: .seconds(1))
        await second.value
    }

    @Test func aHostWithoutADelayIsNotSpaced() async {
        let frontier = Frontier(perHost: 4, delay: 0, robotsFirst: false, clock: clock)
        #expect(await frontier.waitTurn(host) == false)
        #expect(await frontier.waitTurn(host) == false)
        #expect(clock.sleepers == 0)
    }

    @Test func robotsCrawlDelayCountsFromTheRobotsRequest() async {
        let frontier = Frontier(perHost: 4, delay: 0, robotsFirst: true, clock: clock)
        let items = [item("/a"), item("/b")]
        _ = frontier.markSeen(items.map(\.url))
        frontier.enqueue(items)
        let first = await frontier.next()
        #expect(first == items[0])
        // robots.txt: spaced until it is known, and its end is when the Crawl-delay starts.
        #expect(await frontier.waitTurn(host) == true)
        clock.advance(by: .milliseconds(500))
        frontier.requestEnded(host)
        frontier.robotsKnown(host, crawlDelay: 2)
        frontier.finished(items[0])
        let second = Task { await frontier.next() }
        await clock.untilSleeping()
        clock.advance(by: .milliseconds(1900))
        #expect(clock.sleepers == 1, "the next URL was handed out before the Crawl-delay")
        clock.advance(by: .milliseconds(100))
        #expect(await second.value == items[1])
    }

    @Test func untilRobotsIsKnownOneItemOfAHostAtATime() async {
        let frontier = Frontier(perHost: 4, delay: 0, robotsFirst: true, clock: clock)
        let items = [item("/a"), item("/b")]
        _ = frontier.markSeen(items.map(\.url))
        frontier.enqueue(items)
        #expect(await frontier.next() == items[0])
        let second = Task { await frontier.next() }
        for _ in 0..<100 { await Task.yield() }
        #expect(frontier.pendingCount == 1, "a second item of the host was handed out before its robots.txt was known")
        frontier.robotsKnown(host, crawlDelay: nil)
        #expect(await second.value == items[1])
    }

    /// `--per-host` limits requests in flight: once an item's requests are over, its host takes
    /// the next item while the first is still being parsed, and that item's end frees nothing twice.
    @Test func aFetchedItemGivesItsHostSlotBack() async {
        let frontier = Frontier(perHost: 1, delay: 0, robotsFirst: false, clock: clock)
        let items = [item("/a"), item("/b"), item("/c")]
        _ = frontier.markSeen(items.map(\.url))
        frontier.enqueue(items)
        #expect(await frontier.next() == items[0])
        frontier.fetched(items[0])
        frontier.fetched(items[0])
        #expect(await frontier.next() == items[1], "the host's slot was not given back by the fetch")
        frontier.finished(items[0])
        let third = Task { await frontier.next() }
        for _ in 0..<100 { await Task.yield() }
        #expect(frontier.pendingCount == 1, "a second request to the host started while /b was in flight")
        frontier.finished(items[1])
        #expect(await third.value == items[2])
    }

    /// Workers waiting for an item are woken by one queued, and once the last item handed out is
    /// over with nothing queued, every one of them learns the crawl is done.
    @Test func waitingWorkersGetNewItemsAndLearnTheEnd() async {
        let frontier = Frontier(perHost: 4, delay: 0, robotsFirst: false, clock: clock)
        let first = item("/a")
        _ = frontier.markSeen([first.url])
        frontier.enqueue([first])
        #expect(await frontier.next() == first)
        // Each worker ends the item it gets, as the crawl's do, so the others may learn the end.
        let handedOut = Locked<[CrawlItem]>([])
        let waiting = (0..<3).map { _ in
            Task {
                let item = await frontier.next()
                if let item {
                    handedOut.withLock { $0.append(item) }
                    frontier.finished(item)
                }
            }
        }
        for _ in 0..<100 { await Task.yield() }
        let second = item("/b")
        #expect(frontier.markSeen([second.url, first.url]) == [true, false])
        frontier.enqueue([second])
        for _ in 0..<1000 where handedOut.withLock({ $0.isEmpty }) { await Task.yield() }
        #expect(handedOut.withLock { $0 } == [second], "a waiting worker did not get the item queued")
        frontier.finished(first)
        for task in waiting { await task.value }
        #expect(handedOut.withLock { $0 } == [second], "the queued item was handed out more than once")
        #expect(await frontier.next() == nil)
    }
}
