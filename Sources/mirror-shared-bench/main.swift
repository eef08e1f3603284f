// Claims and records URLs of a shared crawl as fast as the database lets it, with no fetching:
// the frontier's own rate, the bound on how many URLs a second all workers together can crawl.
// WORKERS workers (each with its own connections and `--concurrency` tasks, as `mirror crawl
// --shared` runs them) share a crawl of URLS queued URLs spread over HOSTS hosts; each task
// takes a URL (`next()`, which claims in batches), records it done and releases it.
//   mirror-shared-bench postgres://… [--urls N] [--hosts N] [--workers N] [--concurrency N]
import Foundation
import MirrorCore
import MirrorCrawl
import MirrorShared

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String, _ fallback: Int) -> Int {
    arguments.firstIndex(of: name).flatMap {
        arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil
    } ?? fallback
}
guard let address = arguments.first, address.hasPrefix("postgres") else {
    FileHandle.standardError.write(
        Data("usage: mirror-shared-bench postgres://… [--urls N] [--hosts N] [--workers N] [--concurrency N]\n".utf8))
    exit(2)
}
let (urlCount, hostCount, workerCount) = (option("--urls", 20_000), option("--hosts", 1), option("--workers", 3))
let configuration = {
    var configuration = CrawlConfiguration(seeds: [])
    configuration.obeyRobots = false
    configuration.concurrency = option("--concurrency", 8)
    configuration.perHost = 1_000_000
    return configuration
}()
let name = "claims-bench-\(UUID().uuidString)"

// Queue the URLs, in batches of 1,000.
let setup = try await SharedDatabase.connect(address)
let owner = try await SharedCrawl.join(setup, name: name, options: [:], configuration: configuration, lease: .seconds(60))
let loader = SharedFrontier(crawl: owner, configuration: configuration)
let items = (0..<urlCount).map {
    CrawlItem(url: "http://h\($0 % hostCount).test/p/\($0).html", depth: 1, role: .page, hops: 0, referrer: nil)
}
for start in stride(from: 0, to: items.count, by: 1000) {
    _ = try await loader.add(Array(items[start..<min(start + 1000, items.count)]), skipped: [])
}

let started = ContinuousClock.now
let taken = try await withThrowingTaskGroup(of: Int.self) { group in
    for _ in 0..<workerCount {
        group.addTask {
            let database = try await SharedDatabase.connect(address)
            let crawl = try await SharedCrawl.join(database, name: name, options: [:], configuration: configuration, lease: .seconds(60))
            let frontier = SharedFrontier(crawl: crawl, configuration: configuration)
            _ = try await frontier.start(seeds: [], resume: false)
            let count = try await withThrowingTaskGroup(of: Int.self) { tasks in
                for _ in 0..<configuration.concurrency {
                    tasks.addTask {
                        var count = 0
                        while let item = try await frontier.next() {
                            try await frontier.record(item.url, .done, status: 200, detail: nil)
                            await frontier.release(item)
                            count += 1
                        }
                        return count
                    }
                }
                var count = 0
                for try await taken in tasks { count += taken }
                return count
            }
            await frontier.close()
            await database.close()
            return count
        }
    }
    var count = 0
    for try await taken in group { count += taken }
    return count
}
let seconds = (ContinuousClock.now - started).seconds
print(
    String(
        format: "%d URLs of %d hosts claimed and recorded by %d workers in %.2f s: %.0f claims/s",
        taken, hostCount, workerCount, seconds, Double(taken) / seconds))
await loader.close()
await setup.close()
