import Foundation
import MirrorCache
import MirrorCrawlTesting
import MirrorLock
import MirrorTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import MirrorHTTP

/// The crawl's workers run where the transport's connections live, when it offers such executors.
@Suite("Workers near the transport's connections")
struct NearbyExecutorTests {
    /// Sends through a real transport, offers its executors, and notes for each request the event
    /// loop it was sent from, if any.
    final class WatchingTransport: HTTPTransport {
        let inner: AsyncHTTPClientTransport
        /// For each request, the loop it was sent from (nil: from no loop).
        let sentFrom = Locked<[(any EventLoop)?]>([])

        init(inner: AsyncHTTPClientTransport) {
            self.inner = inner
        }

        var nearbyExecutors: [any TaskExecutor] { inner.nearbyExecutors }

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            let loop = MultiThreadedEventLoopGroup.currentEventLoop
            sentFrom.withLock { $0.append(loop) }
            return try await inner.send(request)
        }
    }

    /// A transport on loops of its own, as the command line's crawl makes one.
    static let onOwnLoops = AsyncHTTPClientTransport(eventLoops: .own)
    /// A transport on NIO's shared loops, as a library user's and the test harness's are.
    static let onSharedLoops = AsyncHTTPClientTransport()

    @Test func aTransportOffersOneExecutorForEachLoopOfItsOwn() async throws {
        let loops = Self.onOwnLoops.loops
        let executors = Self.onOwnLoops.nearbyExecutors
        #expect(!executors.isEmpty)
        #expect(executors.count == loops.count)
        let shared = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        #expect(!loops.contains { loop in shared.contains { $0 === loop } }, "loops of its own")
        for (executor, loop) in zip(executors, loops) {
            let ranOn = await Task(executorPreference: executor) { MultiThreadedEventLoopGroup.currentEventLoop }.value
            #expect(ranOn === loop, "a task preferring an executor runs on its loop")
        }
    }

    /// Work on a loop sends through the client whose connections live there; with fewer
    /// connections allowed per host than loops, the loops without a client take the clients in turn.
    @Test(arguments: [1, 2, 8])
    func aLoopsWorkSendsThroughTheClientOnItsLoop(connectionsPerHost: Int) async throws {
        let transport = AsyncHTTPClientTransport(connectionsPerHost: connectionsPerHost, eventLoops: .own)
        let loops = transport.loops
        let clients = min(loops.count, connectionsPerHost)
        for (index, executor) in transport.nearbyExecutors.enumerated() {
            let client = await Task(executorPreference: executor) { transport.client }.value
            let clientLoops = Array(client.eventLoopGroup.makeIterator())
            #expect(clientLoops.count == 1 && clientLoops[0] === loops[index % clients], "loop \(index)")
        }
        try await transport.shutdown()
    }

    /// With a client on each loop, the connections a host may have are shared out between them:
    /// requests sent from every loop at once open no more than the limit.
    @Test(arguments: [1, 2, 3])
    func requestsFromEveryLoopOpenNoMoreConnectionsThanTheLimit(connectionsPerHost: Int) async throws {
        let transport = AsyncHTTPClientTransport(connectionsPerHost: connectionsPerHost, eventLoops: .own)
        try await TestOrigin.with { origin in
            // The first answers wait until as many requests were in flight as the limit allows (or
            // 5 s), so that every connection the clients may open is open, however they are timed.
            origin.route("/held") { [weak origin] _ in
                let deadline = ContinuousClock.now + .seconds(TestTiming.seconds(5))
                while let origin, origin.peakRequestsInFlight < connectionsPerHost, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                return TestResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("held".utf8))
            }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    let executor = transport.nearbyExecutors[index % transport.nearbyExecutors.count]
                    group.addTask(executorPreference: executor) {
                        let response = try await transport.send(TransportRequest(url: origin.url("/held")))
                        for try await _ in response.body {}
                        return response.status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(origin.connections <= connectionsPerHost)
            #expect(origin.peakRequestsInFlight == connectionsPerHost, "every connection allowed was used")
        }
        try await transport.shutdown()
    }

    @Test func aTransportOnTheSharedLoopsOffersNone() {
        // Work held there would keep the program's other servers and clients from answering.
        #expect(Self.onSharedLoops.nearbyExecutors.isEmpty)
        #expect(Self.onSharedLoops.client.eventLoopGroup === MultiThreadedEventLoopGroup.singleton)
    }

    /// The threads of a transport's own loops, as the kernel names them: "PID/task/TID".
    static func loopThreads(of transport: AsyncHTTPClientTransport) async throws -> [String] {
        var threads: [String] = []
        for loop in transport.loops {
            threads.append(try await loop.submit { try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") }.get())
        }
        #expect(threads.count == System.coreCount)
        #expect(threads.allSatisfy { FileManager.default.fileExists(atPath: "/proc/" + $0) })
        return threads
    }

    /// Whether `threads` have all ended within 10 s. A joined thread's entry leaves /proc a moment
    /// after the join returns: the kernel wakes the joiner as the thread lets go of its memory,
    /// and unlists it after.
    static func ended(_ threads: [String]) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while threads.contains(where: { FileManager.default.fileExists(atPath: "/proc/" + $0) }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return threads.allSatisfy { !FileManager.default.fileExists(atPath: "/proc/" + $0) }
    }

    @Test func shutdownStopsTheThreadsOfItsOwnLoops() async throws {
        let transport = AsyncHTTPClientTransport(eventLoops: .own)
        let threads = try await Self.loopThreads(of: transport)
        try await transport.shutdown()
        #expect(try await Self.ended(threads))
    }

    @Test func aTransportDroppedWithoutShutdownStillStopsItsLoops() async throws {
        var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport(eventLoops: .own)
        let threads = try await Self.loopThreads(of: try #require(transport))
        transport = nil  // a caller leaving on an error
        #expect(try await Self.ended(threads))
    }

    @Test(arguments: [true, false])
    func everyRequestIsSentFromTheLoopsExactlyWhenTheTransportOffersThem(ownLoops: Bool) async throws {
        let transport = WatchingTransport(inner: ownLoops ? Self.onOwnLoops : Self.onSharedLoops)
        try await TestOrigin.with(site: .named("plain")) { origin in
            try await CrawlHarness.with(transport: transport) { harness in
                let report = try await harness.crawl([origin.url("/")])
                #expect(report.failures.isEmpty, "\(report.failures)")
            }
        }
        let sent = transport.sentFrom.withLock { $0 }
        #expect(sent.count >= 9, "robots.txt and the site's nine resources")
        if ownLoops {
            // From the transport's own loops, not merely from some loop (the test origin's are NIO's shared ones).
            let own = Self.onOwnLoops.loops
            #expect(sent.allSatisfy { loop in own.contains { $0 === loop } }, "\(sent)")
        } else {
            #expect(sent.allSatisfy { $0 == nil }, "\(sent)")
        }
    }
}
