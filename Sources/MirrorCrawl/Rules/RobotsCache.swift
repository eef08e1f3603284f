import MirrorCache
import MirrorCore
import MirrorLock

/// robots.txt per origin, fetched once (through the cache) and shared by all workers. Every item
/// asks: a known origin's answer is a look under a lock, with no hop to another executor.
final class RobotsCache: Sendable {
    /// The rules, and why they are "disallow all" when robots.txt could not be read.
    struct Verdict: Sendable {
        let rules: RobotsRules
        let problem: String?
    }

    /// An origin's robots.txt: being fetched (the workers that ask meanwhile wait for that
    /// fetch), or read.
    private enum Entry {
        case fetching(Task<Verdict, Never>)
        case known(Verdict)
    }

    private let entries = Locked<[String: Entry]>([:])
    private let userAgent: String

    init(userAgent: String) {
        self.userAgent = userAgent
    }

    /// Sends one request, the crawl's way (its politeness, its cache rules, its log).
    typealias Send = @Sendable (CacheRequest) async throws -> CacheResponse

    /// The rules for `url`'s origin (RFC 9309 §2.3.1: 4xx allows all, 5xx or no answer disallows all;
    /// up to five redirects are followed), fetched with `send` the first time.
    func rules(for url: URLParts, send: @escaping Send) async -> Verdict {
        let origin = url.origin
        let userAgent = userAgent
        let entry = entries.withLock { entries in
            if let entry = entries[origin] { return entry }
            let task = Task { await Self.fetch("\(origin)/robots.txt", userAgent: userAgent, send: send) }
            entries[origin] = .fetching(task)
            return .fetching(task)
        }
        switch entry {
        case .known(let verdict): return verdict
        case .fetching(let task):
            let verdict = await task.value
            entries.withLock { $0[origin] = .known(verdict) }
            return verdict
        }
    }

    private static func fetch(_ start: String, userAgent: String, send: Send) async -> Verdict {
        var location = start
        for _ in 0..<5 {
            let response: CacheResponse
            do {
                response = try await send(CacheRequest(url: location))
            } catch {
                return Verdict(rules: .disallowAll, problem: "\(location) unreachable (\(error))")
            }
            switch response.status {
            case 200..<300:
                // RFC 9309 §2.5: parse at least 500 KiB.
                let bytes = (try? response.body.collect(limit: 512 * 1024)) ?? []
                return Verdict(rules: RobotsRules(text: String(decoding: bytes, as: UTF8.self), userAgent: userAgent), problem: nil)
            case 300..<400:
                guard let next = response.headers.first(name: "location"),
                    let resolved = URLParts(location)?.resolve(next)
                else { return Verdict(rules: .allowAll, problem: nil) }
                location = resolved.normalized
            case 400..<500:
                return Verdict(rules: .allowAll, problem: nil)
            default:
                if response.outcome == .offlineMiss { return Verdict(rules: .allowAll, problem: nil) }
                return Verdict(rules: .disallowAll, problem: "\(location) answered \(response.status)")
            }
        }
        return Verdict(rules: .allowAll, problem: nil)
    }
}
