public import Foundation
public import MirrorCache

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Record the HTTP a test makes once, then replay it with the network gone, as Ruby's VCR and
/// Python's vcrpy do, but through the real cache: the recording is a `mirror` cache folder
/// (`mirror cache ls` lists it, `mirror proxy --mode replay` serves it to other programs), and
/// a replayed request is answered as the cache answers it offline.
///
/// ```swift
/// @Test func theForecastParses() async throws {
///     try await MirrorCassette.with("Fixtures/forecast") { session in
///         let (data, _) = try await session.data(from: URL(string: "https://api.example.com/forecast")!)
///         #expect(try Forecast(data).days.count == 7)
///     }
/// }
/// ```
///
/// A request the recording lacks fails loudly in replay, with `URLError.resourceUnavailable`.
public enum MirrorCassette {
    /// The environment variable that chooses the mode when a call does not:
    /// `record`, `replay` or `passthrough`.
    public static let modeVariable = "MIRROR_CASSETTE"

    /// Runs `body` with a URLSession whose every request goes through the recording in `folder`.
    /// - Parameters:
    ///   - folder: the recording, a `mirror` cache folder (kept with the tests).
    ///   - mode: how to use the folder; nil takes `$MIRROR_CASSETTE`, else replays a folder that
    ///     holds a recording and records one that does not.
    ///   - configuration: the cache's policy, admission rules and limits. A recording stores
    ///     every response to a GET, `no-store` ones too (`CachePolicy.storesEverything`).
    ///   - body: the test's requests, made with the session it is given.
    public static func with<Result>(
        _ folder: String, mode: RecordingMode? = nil, configuration: CachingClient.Configuration = .init(),
        _ body: (URLSession) async throws -> Result
    ) async throws -> Result {
        var recording = configuration
        recording.policy.storesEverything = true
        let cache = try MirrorURLCache(folder: folder, mode: mode ?? defaultMode(for: folder), configuration: recording)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        cache.install(in: sessionConfiguration)
        let session = URLSession(configuration: sessionConfiguration)
        let result: Swift.Result<Result, any Error>
        do { result = .success(try await body(session)) } catch { result = .failure(error) }
        session.finishTasksAndInvalidate()
        try await cache.close()
        return try result.get()
    }

    /// `$MIRROR_CASSETTE`, else replay when `folder` holds a recording, else record.
    /// - Parameters:
    ///   - folder: the recording's folder.
    ///   - environment: the variables to read `MIRROR_CASSETTE` from.
    public static func defaultMode(
        for folder: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> RecordingMode {
        if let chosen = environment[modeVariable] {
            guard let mode = RecordingMode(rawValue: chosen) else { throw UnknownMode(value: chosen) }
            return mode
        }
        return FileManager.default.fileExists(atPath: folder + "/index.sqlite") ? .replay : .record
    }

    /// `$MIRROR_CASSETTE` names no mode.
    public struct UnknownMode: Error, CustomStringConvertible {
        /// What the variable said.
        public let value: String
        /// The refusal in words, with the modes there are.
        public var description: String { "\(modeVariable)=\(value): the mode is record, replay or passthrough" }
    }
}
