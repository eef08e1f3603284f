// The parts of a crawl's cost, layer by layer: fetches every URL of a list with as many requests
// in flight as a crawl keeps, on the executors a crawl's workers run on, through the crawl's
// transport (`AsyncHTTPClientTransport`, async-http-client) alone, or also through the cache
// engine a crawl uses (`--cache DIR`: each response stored as `mirror crawl` stores it — body
// file, index row, entry log), and also parsing each HTML page with libxml2 as the crawl does
// (`--parse`). No frontier, folder or journal. The benchmark scripts (scripts/lib/crawl-parts.sh)
// compare these times with mirror's and wget2's whole crawls.
//
//     mirror-fetch-bench URL-LIST [CONCURRENCY=8] [--cache DIR [--parse]]
//
// One URL a line; prints one line of JSON, and on standard error how many requests failed and
// the first failure, if any did (a time with failures measures less than the whole list).
import Foundation
import MirrorCache
import MirrorCore
import MirrorHTML
import MirrorHTTP
import Synchronization

/// The arguments with the options taken out, and the options' values.
let (arguments, cacheDirectory, parse) = { () -> ([String], String?, Bool) in
    var arguments = Array(CommandLine.arguments.dropFirst())
    var cache: String?
    if let index = arguments.firstIndex(of: "--cache"), index + 1 < arguments.count {
        cache = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
    }
    let parse = arguments.contains("--parse")
    arguments.removeAll { $0 == "--parse" }
    return (arguments, cache, parse)
}()
guard !arguments.isEmpty, let list = try? String(contentsOfFile: arguments[0], encoding: .utf8),
    cacheDirectory != nil || !parse
else {
    FileHandle.standardError.write(Data("usage: mirror-fetch-bench URL-LIST [CONCURRENCY] [--cache DIR [--parse]]\n".utf8))
    exit(2)
}
let urls = list.split(separator: "\n").map(String.init)
let concurrency = arguments.count > 1 ? Int(arguments[1]) ?? 8 : 8
let transport = AsyncHTTPClientTransport(connectionsPerHost: concurrency, eventLoops: .own)
let client = try cacheDirectory.map { directory in
    CachingClient(store: try CacheStore(directory: directory, configuration: .crawl), transport: transport)
}

/// Fetches one URL the chosen way; returns the bytes of its body.
@Sendable func fetch(_ url: String) async throws -> Int {
    guard let client else {
        var bytes = 0
        for try await chunk in try await transport.send(TransportRequest(url: url)).body { bytes += chunk.count }
        return bytes
    }
    let response = try await client.fetch(CacheRequest(url: url))
    let body = try response.body.collect()
    if parse, let type = response.headers.first(name: "content-type"), type.contains("html") {
        let locator = HTMLReferenceLocator(charset: CharsetSniffer.charset(contentType: type, prefix: Array(body.prefix(1024))))
        locator.feed(body)
        _ = locator.finish()
        _ = locator.links
    }
    return body.count
}

let next = Atomic<Int>(0)
let bytes = Atomic<Int>(0)
let failures = Atomic<Int>(0)
let clock = ContinuousClock()
let elapsed = await clock.measure {
    await withTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            // As the crawl's workers run: on the transport's executors, near its connections.
            let executor = transport.nearbyExecutors[worker % transport.nearbyExecutors.count]
            PreferredExecutor.addTask(to: &group, on: executor) {
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < urls.count else { return }
                    do {
                        bytes.add(try await fetch(urls[index]), ordering: .relaxed)
                    } catch {
                        if failures.add(1, ordering: .relaxed).oldValue == 0 {
                            FileHandle.standardError.write(Data("\(urls[index]): \(error)\n".utf8))
                        }
                    }
                }
            }
        }
    }
}
try client?.store.commitPending()
try await transport.shutdown()
if failures.load(ordering: .relaxed) > 0 {
    FileHandle.standardError.write(Data("\(failures.load(ordering: .relaxed)) of \(urls.count) requests failed\n".utf8))
}
let seconds = elapsed.seconds
print(
    "{\"requests\": \(urls.count), \"failures\": \(failures.load(ordering: .relaxed)), "
        + "\"bytes\": \(bytes.load(ordering: .relaxed)), \"seconds\": \(seconds)}")
