// The transport's own cost: fetches every URL of a list through the crawl's transport
// (`AsyncHTTPClientTransport`, async-http-client) with as many requests in flight as a crawl
// keeps, and drops each body — no cache, no parse, no file. scripts/bench-scale.sh compares its
// time with wget2's whole crawl of the same site.
//
//     mirror-fetch-bench URL-LIST [CONCURRENCY=8]   one URL a line; prints one line of JSON
import Foundation
import MirrorCache
import MirrorHTTP
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 2, let list = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: mirror-fetch-bench URL-LIST [CONCURRENCY]\n".utf8))
    exit(2)
}
let urls = list.split(separator: "\n").map(String.init)
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8
let transport = AsyncHTTPClientTransport(connectionsPerHost: concurrency)
let next = Atomic<Int>(0)
let bytes = Atomic<Int>(0)
let failures = Atomic<Int>(0)
let clock = ContinuousClock()
let elapsed = await clock.measure {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < urls.count else { return }
                    do {
                        let response = try await transport.send(TransportRequest(url: urls[index]))
                        for try await chunk in response.body { bytes.add(chunk.count, ordering: .relaxed) }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
        }
    }
}
try await transport.shutdown()
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print("{\"requests\": \(urls.count), \"failures\": \(failures.load(ordering: .relaxed)), "
    + "\"bytes\": \(bytes.load(ordering: .relaxed)), \"seconds\": \(seconds)}")
