import MirrorCache
import MirrorCrawlTesting
import MirrorLock
import MirrorTestSupport
import NIOPosix
import Testing

@testable import MirrorHTTP

/// The crawl's workers run where the transport's connections live, when it offers such executors.
@Suite("Workers near the transport's connections")
struct NearbyExecutorTests {
    /// Sends through the shared real transport and notes, for each request, whether it was sent
    /// from a thread of the event loops; offers the real transport's executors, or none.
    final class WatchingTransport: HTTPTransport {
        let inner: AsyncHTTPClientTransport
        let offersExecutors: Bool
        let sentFromLoop = Locked<[Bool]>([])

        init(inner: AsyncHTTPClientTransport, offersExecutors: Bool) {
            self.inner = inner
            self.offersExecutors = offersExecutors
        }

        var nearbyExecutors: [any TaskExecutor] { offersExecutors ? inner.nearbyExecutors : [] }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let onLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
            sentFromLoop.withLock { $0.append(onLoop) }
            return try await inner.send(request)
        }
    }

    static let transport = AsyncHTTPClientTransport()

    @Test func theRealTransportOffersOneExecutorForEachOfItsLoops() async throws {
        let loops = Array(Self.transport.client.eventLoopGroup.makeIterator())
        let executors = Self.transport.nearbyExecutors
        #expect(executors.count == loops.count)
        for (executor, loop) in zip(executors, loops) {
            let ranOn = await Task(executorPreference: executor) { MultiThreadedEventLoopGroup.currentEventLoop }.value
            #expect(ranOn === loop, "a task preferring an executor runs on its loop")
        }
    }

    @Test(arguments: [true, false])
    func everyRequestIsSentFromTheLoopsExactlyWhenTheTransportOffersThem(offersExecutors: Bool) async throws {
        let transport = WatchingTransport(inner: Self.transport, offersExecutors: offersExecutors)
        try await TestOrigin.with(site: .named("plain")) { origin in
            try await CrawlHarness.with(transport: transport) { harness in
                let report = try await harness.crawl([origin.url("/")])
                #expect(report.failures.isEmpty, "\(report.failures)")
            }
        }
        let sent = transport.sentFromLoop.withLock { $0 }
        #expect(sent.count >= 9, "robots.txt and the site's nine resources")
        #expect(sent.allSatisfy { $0 == offersExecutors }, "\(sent)")
    }
}
