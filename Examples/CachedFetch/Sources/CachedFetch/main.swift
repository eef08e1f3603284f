import Foundation
import MirrorCache
import MirrorHTTP

// Usage: cached-fetch URL [CACHE_DIR]. Fetches URL twice through a persistent RFC 9111 cache
// and prints how each answer was obtained (miss, hit, revalidated, …).
let arguments = CommandLine.arguments.dropFirst()
guard let url = arguments.first else {
    FileHandle.standardError.write(Data("usage: cached-fetch URL [CACHE_DIR]\n".utf8))
    exit(2)
}
let directory = arguments.dropFirst().first ?? NSTemporaryDirectory() + "cached-fetch"

let transport = AsyncHTTPClientTransport()
var configuration = CachingClient.Configuration()
configuration.mode = .maxAge(3600)  // the old "cache time": younger answers are used as they are
let client = CachingClient(store: try CacheStore(directory: directory), transport: transport, configuration: configuration)

for attempt in 1...2 {
    let response = try await client.fetch(CacheRequest(url: url))
    let body = try response.body.collect(limit: 64 << 20)
    print("fetch \(attempt): \(response.status) \(response.outcome.rawValue) \(body.count) bytes")
}
try await transport.shutdown()
