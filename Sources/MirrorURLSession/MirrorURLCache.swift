public import MirrorCache
import MirrorHTTP

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// A `mirror` cache folder as a URLSession's cache: every http(s) request of a session it is
/// installed in is answered through the folder by ``MirrorURLProtocol``, in the folder's
/// `RecordingMode`: recorded per RFC 9111 with validation, replayed from the folder alone
/// (a request never recorded fails with `URLError.resourceUnavailable`), or passed through.
///
/// ```swift
/// let cache = try MirrorURLCache(folder: "Cache", mode: .record)
/// let configuration = URLSessionConfiguration.default
/// cache.install(in: configuration)
/// let session = URLSession(configuration: configuration)
/// ```
///
/// The folder is a normal `mirror` cache: `mirror cache ls`, `mirror serve` and
/// `mirror proxy --mode replay` read it, and many processes may share it.
///
/// The session finds the cache through its `urlCache`, which is why this is a `URLCache`:
/// Foundation asks a session's cache about every data task before it starts the protocol,
/// and the answer carries the cache to the protocol. Foundation's own `URLCache` methods see
/// an empty cache; the folder is read and written by the protocol alone.
public final class MirrorURLCache: URLCache, @unchecked Sendable {
    /// How requests use the folder.
    public let mode: RecordingMode
    /// The engine that answers: its store is the folder.
    public let client: CachingClient
    /// The network, for requests that pass the cache by (uploads, `passthrough`).
    let transport: any HTTPTransport
    /// The transport made here, closed by `close()`; nil when the caller gave one.
    private let ownTransport: AsyncHTTPClientTransport?

    /// Opens (creating if needed) the cache in `folder`.
    /// - Parameters:
    ///   - folder: the cache folder, shared with any other process and `mirror` command.
    ///   - mode: record, replay or passthrough.
    ///   - configuration: the engine's policy, admission rules (hosts, URL patterns, user
    ///     agents: requests outside them pass the cache by) and limits. Bodies always stream.
    ///   - transport: the network; by default async-http-client with `mirror`'s settings.
    public init(
        folder: String, mode: RecordingMode = .record, configuration: CachingClient.Configuration = .init(),
        transport: (any HTTPTransport)? = nil
    ) throws {
        self.mode = mode
        let made = transport == nil ? AsyncHTTPClientTransport() : nil
        ownTransport = made
        self.transport = transport ?? made!
        var engine = configuration
        engine.streamsBodies = true
        engine.mode = mode.cacheMode(recording: configuration.mode)
        client = CachingClient(store: try CacheStore(directory: folder), transport: self.transport, configuration: engine)
        // No memory and no disk of Foundation's own: the folder exists, so nothing is created.
        super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: folder)
    }

    /// Makes every session created from `configuration` answer its http(s) requests through
    /// this cache: puts ``MirrorURLProtocol`` first in its `protocolClasses` and this cache in
    /// its `urlCache`.
    public func install(in configuration: URLSessionConfiguration) {
        let others = (configuration.protocolClasses ?? []).filter { $0 != MirrorURLProtocol.self }
        configuration.protocolClasses = [MirrorURLProtocol.self] + others
        configuration.urlCache = self
    }

    /// Closes the network connections this cache opened. Call once, when no session uses it.
    public func close() async throws {
        try await ownTransport?.shutdown()
    }

    // MARK: URLCache

    /// The cache itself, wrapped for the protocol that Foundation is about to start.
    override public func getCachedResponse(
        for dataTask: URLSessionDataTask, completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        completionHandler(Self.carrier(of: self))
    }

    /// Nil: the folder is read by the protocol alone.
    override public func cachedResponse(for request: URLRequest) -> CachedURLResponse? { nil }
    /// Nothing: the protocol stores what it receives in the folder itself.
    override public func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {}
    /// Nothing: the protocol stores what it receives in the folder itself.
    override public func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {}

    private static let carrierKey = "mirror.cache"

    /// A response that is not one: what Foundation hands the protocol as the task's cached response.
    private static func carrier(of cache: MirrorURLCache) -> CachedURLResponse {
        let placeholder = URLResponse(url: URL(fileURLWithPath: "/"), mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        return CachedURLResponse(response: placeholder, data: Data(), userInfo: [carrierKey: cache], storagePolicy: .notAllowed)
    }

    /// The cache a protocol was handed by `getCachedResponse`, if it was.
    static func carried(by response: CachedURLResponse?) -> MirrorURLCache? {
        response?.userInfo?[carrierKey] as? MirrorURLCache
    }
}
