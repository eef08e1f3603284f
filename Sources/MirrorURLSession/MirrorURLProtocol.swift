import MirrorLock

#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// Answers a URLSession's http(s) requests through a ``MirrorURLCache``, which
/// ``MirrorURLCache/install(in:)`` puts in the session's configuration with this class.
///
/// What URLSession's own HTTP does, it does: it honours each request's `cachePolicy`, follows
/// redirects (asking the task's delegate, as URLSession does), hands the body to a delegate as
/// it arrives (a download of any size never sits in memory) or whole to a completion handler,
/// sends the configuration's `httpAdditionalHeaders`, and stops when the task is cancelled.
/// Uploads (POST and other methods) go to the network uncached.
///
/// Data and upload tasks only; a download task fails with `URLError.unsupportedURL`. Foundation
/// on Linux asks a session's cache about data tasks alone, so a download task never reaches the
/// folder, and it stops the process on a download through any custom protocol.
public final class MirrorURLProtocol: URLProtocol {
    /// The work of this load, and whether the task stopped it: once stopped, the client hears
    /// nothing more (Foundation ends a cancelled task itself).
    private let state = Locked(LoadState.idle)

    private enum LoadState {
        case idle
        case loading(Task<Void, Never>)
        case stopped
    }

    /// Whether the protocol takes `request`: every http and https one.
    override public class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// `request` as it is: the cache normalises URLs itself.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Starts answering the task through the cache Foundation handed over as its cached
    /// response; fails the task when there is none (no ``MirrorURLCache`` in the session).
    override public func startLoading() {
        guard let cache = MirrorURLCache.carried(by: cachedResponse), let task else {
            let message =
                "MirrorURLProtocol answers the data and upload tasks of a session whose urlCache is a MirrorURLCache (MirrorURLCache.install(in:))"
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: message]))
            return
        }
        let load = ProtocolLoad(request: request, task: task, cache: cache, listener: self)
        state.withLock { state in
            guard case .idle = state else { return }
            state = .loading(Task { await load.run() })
        }
    }

    /// Stops the load: the task was cancelled, and hears nothing more.
    override public func stopLoading() {
        let work: Task<Void, Never>? = state.withLock { state in
            defer { state = .stopped }
            if case .loading(let work) = state { return work }
            return nil
        }
        work?.cancel()
    }

    /// Tells the client, unless the task stopped this load: on the session's work queue, where
    /// Foundation calls its own protocols' client (`TaskIntrospection.workQueue`), and under the
    /// lock, so that none comes after `stopLoading` returns. The caller waits for the call
    /// without holding a thread: a thread of Swift's pool blocked on the queue would starve the
    /// process's other tasks while many loads run.
    func tell(on queue: DispatchQueue?, _ message: @escaping (any URLProtocolClient, URLProtocol) -> Void) async {
        let call = ClientCall {
            self.state.withLock { state in
                if case .stopped = state { return }
                if let client = self.client { message(client, self) }
            }
        }
        guard let queue else { return call.run() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                call.run()
                continuation.resume()
            }
        }
    }
}

/// A call to the URLSession client, carried to the session's work queue. Foundation's client and
/// protocol types are not Sendable; the queue is where Foundation itself calls them.
private struct ClientCall: @unchecked Sendable {
    let run: () -> Void
}
