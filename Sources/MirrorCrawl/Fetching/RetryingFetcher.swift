import MirrorCache
import MirrorCore

/// Fetches a crawl's URL through the cache, retrying timeouts, connection errors, 429 and 5xx
/// with backoff.
struct RetryingFetcher: Sendable {
    let sender: RequestSender
    let retries: Int

    func fetch(_ item: CrawlItem) async throws -> CacheResponse {
        let request = CacheRequest(url: item.url)
        var attempt = 0
        while true {
            do {
                let response = try await sender.send(request)
                let retryable = response.status == 429 || (500...599).contains(response.status) && response.outcome != .offlineMiss
                guard retryable, attempt < retries else { return response }
                try await Task.sleep(for: Self.backoff(attempt: attempt, retryAfter: response.headers.first(name: "retry-after")))
            } catch let error as CacheError {
                if error.code == .bodyTooLarge { throw error }
                guard attempt < retries else { throw error }
                try await Task.sleep(for: Self.backoff(attempt: attempt, retryAfter: nil))
            } catch {
                guard attempt < retries, !(error is any PermanentTransportError) else { throw error }
                try await Task.sleep(for: Self.backoff(attempt: attempt, retryAfter: nil))
            }
            attempt += 1
        }
    }

    /// 0.5 s, 1 s, 2 s … or the server's Retry-After in seconds, at most 30 s.
    static func backoff(attempt: Int, retryAfter: String?) -> Duration {
        if let retryAfter, let seconds = Int(retryAfter.trimmingCharacters()) { return .seconds(min(max(seconds, 0), 30)) }
        return .milliseconds(min(500 << attempt, 30_000))
    }
}
