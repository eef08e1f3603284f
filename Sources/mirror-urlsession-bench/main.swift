// Cache hits through a program's HTTP clients: URLSession with MirrorURLProtocol against
// URLSession with Foundation's own URLCache, and CachingHTTPClient against a bare
// async-http-client HTTPClient (whose every request goes to the server). One client a run:
//
//     mirror-urlsession-bench CLIENT URL SECONDS CONCURRENCY CACHE_DIR
//
// CLIENT is urlsession-mirror, urlsession-urlcache, ahc-mirror or ahc-bare. The URL is fetched
// once to fill the cache, then by CONCURRENCY tasks for SECONDS. Prints one line of JSON:
// requests, requests per second, and the median and 99th percentile latency in microseconds.
// scripts/bench-urlsession.sh runs each client against nginx and counts the requests nginx saw.
//
//     mirror-urlsession-bench stream urlsession|ahc URL CACHE_DIR
//
// Downloads URL once through a cache folder, with URLSession (MirrorURLProtocol, to a data
// delegate) or CachingHTTPClient, counting and dropping the pieces as they come; prints the
// bytes and this process's resident memory before and at its peak (Linux's VmRSS and VmHWM, in
// bytes): what a download of that size costs in memory.
import AsyncHTTPClient
import Foundation
import MirrorHTTP
import MirrorURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 4 && arguments[0] == "stream" {
    let before = statusBytes("VmRSS")
    let bytes = try await arguments[1] == "ahc" ? streamWithAHC(arguments[2], into: arguments[3]) : stream(arguments[2], into: arguments[3])
    let summary = ["bytes": bytes, "rss_before": before, "rss_peak": statusBytes("VmHWM")]
    print(String(decoding: try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys]), as: UTF8.self))
    exit(0)
}
guard arguments.count == 5, let seconds = Double(arguments[2]), let concurrency = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: mirror-urlsession-bench CLIENT URL SECONDS CONCURRENCY CACHE_DIR\n".utf8))
    exit(2)
}
let (client, url, folder) = (arguments[0], arguments[1], arguments[4])

/// One request of the chosen client; returns its body's size.
typealias Fetch = @Sendable () async throws -> Int
/// The chosen client's request, and what closes it.
let (fetch, close): (Fetch, @Sendable () async throws -> Void) = try {
    switch client {
    case "urlsession-mirror", "urlsession-urlcache":
        let configuration = URLSessionConfiguration.default
        let mirror = client == "urlsession-mirror" ? try MirrorURLCache(folder: folder) : nil
        if let mirror {
            mirror.install(in: configuration)
        } else {
            configuration.urlCache = URLCache(memoryCapacity: 64 << 20, diskCapacity: 256 << 20, diskPath: folder)
        }
        let session = URLSession(configuration: configuration)
        let target = URL(string: url)!
        return ({ try await session.data(from: target).0.count }, { try await mirror?.close() })
    case "ahc-mirror":
        let caching = try CachingHTTPClient(folder: folder)
        return (
            { try await caching.execute(HTTPClientRequest(url: url), timeout: .seconds(30)).body.collect(upTo: 64 << 20).readableBytes },
            { try await caching.shutdown() }
        )
    case "ahc-bare":
        let bare = HTTPClient(eventLoopGroupProvider: .singleton)
        return (
            { try await bare.execute(HTTPClientRequest(url: url), timeout: .seconds(30)).body.collect(upTo: 64 << 20).readableBytes },
            { try await bare.shutdown() }
        )
    default:
        FileHandle.standardError.write(Data("mirror-urlsession-bench: unknown client \(client)\n".utf8))
        exit(2)
    }
}()

_ = try await fetch()
let clock = ContinuousClock()
let end = clock.now + .seconds(seconds)
let started = clock.now
let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
    for _ in 0..<concurrency {
        group.addTask {
            var mine: [Duration] = []
            while clock.now < end {
                let start = clock.now
                _ = try await fetch()
                mine.append(clock.now - start)
            }
            return mine
        }
    }
    var all: [Duration] = []
    for try await mine in group { all += mine }
    return all.sorted()
}
let elapsed = clock.now - started
try await close()

func microseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
}
let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let summary: [String: Any] = [
    "client": client, "requests": latencies.count, "rps": Int(Double(latencies.count) / total),
    "p50_us": microseconds(latencies[latencies.count / 2]),
    "p99_us": microseconds(latencies[min(latencies.count - 1, latencies.count * 99 / 100)]),
]
print(String(decoding: try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys]), as: UTF8.self))

// MARK: One download's memory

/// A field of /proc/self/status, in bytes.
func statusBytes(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0) * 1024
}

/// Counts what arrives and says when the task ends.
final class Counter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private(set) var bytes = 0
    var ended: (@Sendable ((any Error)?) -> Void)?

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) { bytes += data.count }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { ended?(error) }
}

/// Downloads `url` through URLSession and MirrorURLProtocol; returns the bytes received.
func stream(_ url: String, into folder: String) async throws -> Int {
    let cache = try MirrorURLCache(folder: folder)
    let configuration = URLSessionConfiguration.ephemeral
    cache.install(in: configuration)
    let counter = Counter()
    // One delegate queue: the counter is only touched there.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = URLSession(configuration: configuration, delegate: counter, delegateQueue: queue)
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        counter.ended = { error in
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
        session.dataTask(with: URL(string: url)!).resume()
    }
    session.finishTasksAndInvalidate()
    try await cache.close()
    return counter.bytes
}

/// Downloads `url` through CachingHTTPClient; returns the bytes received.
func streamWithAHC(_ url: String, into folder: String) async throws -> Int {
    let client = try CachingHTTPClient(folder: folder)
    var bytes = 0
    for try await piece in try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60)).body {
        bytes += piece.readableBytes
    }
    try await client.shutdown()
    return bytes
}
