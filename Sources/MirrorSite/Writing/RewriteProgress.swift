import Foundation
import MirrorCore

/// How far the finish's link rewrite has gone, for the manifest written on a thread of its own
/// behind it: a resource goes into the manifest once its file is rewritten and its record says
/// so, and the manifest's last key, the search index's digest, once the index made after the
/// rewrite has it.
///
/// Unchecked Sendable: `state` is read and changed under `condition` only.
final class RewriteProgress: @unchecked Sendable {
    typealias Slice = [(url: String, resource: SiteManifest.Resource)]

    private enum State {
        /// Every resource up to this URL (in the byte order of URLs) is rewritten; none yet when nil.
        case rewriting(through: String?)
        /// Every resource is as it will be (or the finish failed, and `search` throws).
        case ended(search: @Sendable () throws -> SiteManifest.FileDigest?)
    }

    private let condition = NSCondition()
    private var state = State.rewriting(through: nil)

    /// The rewrite has gone through every resource up to `url`.
    func rewritten(through url: String) {
        change { if case .rewriting = $0 { $0 = .rewriting(through: url) } }
    }

    /// The rewrite has ended, and `search` gives the index's digest (or throws why there is none
    /// to write); a second end changes nothing.
    func end(search: @escaping @Sendable () throws -> SiteManifest.FileDigest?) {
        change { if case .rewriting = $0 { $0 = .ended(search: search) } }
    }

    /// The slice `read` gives of the resources after `url`, once the rewrite has gone past `url`,
    /// and read again when it reaches further than the rewrite had gone then.
    func rewrittenSlice(after url: String?, read: (_ after: String?) throws -> Slice) throws -> Slice {
        wait { state in Self.covers(state) { through in url.map { $0.bytesPrecede(through) } ?? true } }
        while true {
            let slice = try read(url)
            guard let last = slice.last?.url else { return slice }
            if covered(last) { return slice }
            wait { state in Self.covers(state) { !$0.bytesPrecede(last) } }
        }
    }

    /// The search index's digest, once the rewrite has ended.
    func searchDigest() throws -> SiteManifest.FileDigest? {
        wait { if case .ended = $0 { true } else { false } }
        condition.lock()
        let state = self.state
        condition.unlock()
        guard case .ended(let search) = state else { return nil }
        return try search()
    }

    private func covered(_ url: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return Self.covers(state) { !$0.bytesPrecede(url) }
    }

    /// Whether `state` has every resource in place that `reached` accepts of the rewrite's last URL.
    private static func covers(_ state: State, _ reached: (_ through: String) -> Bool) -> Bool {
        switch state {
        case .ended: true
        case .rewriting(let through): through.map(reached) ?? false
        }
    }

    private func change(_ body: (inout State) -> Void) {
        condition.lock()
        body(&state)
        condition.broadcast()
        condition.unlock()
    }

    private func wait(until done: (State) -> Bool) {
        condition.lock()
        while !done(state) { condition.wait() }
        condition.unlock()
    }
}
