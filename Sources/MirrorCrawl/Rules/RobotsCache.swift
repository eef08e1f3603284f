import MirrorCache
import MirrorCore

/// robots.txt per origin, fetched once (through the cache) and shared by all workers.
actor RobotsCache {
    /// The rules, and why they are "disallow all" when robots.txt could not be read.
    struct Verdict: Sendable {
        let rules: RobotsRules
        let problem: String?
    }

    private var rules: [String: Task<Verdict, Never>] = [:]
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
        if let known = rules[origin] { return await known.value }
        let userAgent = userAgent
        let task = Task { await Self.fetch("\(origin)/robots.txt", userAgent: userAgent, send: send) }
        rules[origin] = task
        return await task.value
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
