import Foundation
import MirrorCache
import MirrorURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cache folder of the test's own, and URLSessions through it.
struct SessionHarness {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("urlsession-\(UUID().uuidString)").path

    /// Runs `body` with a cache on the folder in `mode` and a session through it (with
    /// `delegate`, if any); closes both and removes the folder after, however `body` ends.
    func with<Result>(
        _ mode: RecordingMode = .record, configuration: CachingClient.Configuration = .init(),
        delegate: (any URLSessionDelegate)? = nil, removing: Bool = true,
        _ body: (URLSession, MirrorURLCache) async throws -> Result
    ) async throws -> Result {
        let cache = try MirrorURLCache(folder: folder, mode: mode, configuration: configuration)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        cache.install(in: sessionConfiguration)
        let session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await body(session, cache)) } catch { result = .failure(error) }
        session.finishTasksAndInvalidate()
        try await cache.close()
        if removing { try? FileManager.default.removeItem(atPath: folder) }
        return try result.get()
    }

    /// Removes the folder (after runs made with `removing: false`).
    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

/// The body of a response as text.
func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

/// The status of a URLSession response.
func status(_ response: URLResponse) -> Int { (response as? HTTPURLResponse)?.statusCode ?? 0 }
