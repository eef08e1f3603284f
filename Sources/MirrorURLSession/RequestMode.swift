import Foundation
import MirrorCache

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the cache answers one request: the folder's recording mode, then the request's
/// `cachePolicy` as URLSession reads it.
///
/// | cachePolicy | record | replay | passthrough |
/// | --- | --- | --- | --- |
/// | useProtocolCachePolicy | RFC 9111 | stored only | network |
/// | reloadIgnoringLocalCacheData | fetched anew, stored | stored only | network |
/// | reloadRevalidatingCacheData | revalidated | stored only | network |
/// | returnCacheDataElseLoad | stored at any age, else fetched | stored only | network |
/// | returnCacheDataDontLoad | stored at any age, else a miss | stored only | a miss |
struct RequestMode {
    /// The engine's mode for the request; nil for the cache's own configuration.
    let cacheMode: CacheMode?

    init(_ recording: RecordingMode, policy: URLRequest.CachePolicy, url: URL) throws {
        switch (recording, policy) {
        case (.replay, _):
            cacheMode = .offline
        case (.passthrough, .returnCacheDataDontLoad):
            throw Self.miss(url, recording: recording)
        case (.passthrough, _):
            cacheMode = .bypass
        case (.record, .reloadIgnoringLocalCacheData), (.record, .reloadIgnoringLocalAndRemoteCacheData):
            cacheMode = .reload
        case (.record, .reloadRevalidatingCacheData):
            cacheMode = .refresh
        case (.record, .returnCacheDataElseLoad):
            cacheMode = .maxAge(.infinity)
        case (.record, .returnCacheDataDontLoad):
            cacheMode = .offline
        case (.record, _):
            cacheMode = nil
        }
    }

    /// The error of a request the folder cannot answer without the network it may not use:
    /// `URLError.resourceUnavailable`, as Foundation's own cache reports a miss under
    /// `returnCacheDataDontLoad`.
    static func miss(_ url: URL, recording: RecordingMode) -> URLError {
        let reason = recording == .replay ? "the cache is replaying" : "the request may not load"
        return URLError(
            .resourceUnavailable,
            userInfo: [
                NSLocalizedDescriptionKey: "Not in the cache folder, and \(reason): \(url.absoluteString)",
                NSURLErrorFailingURLErrorKey: url,
            ])
    }
}
