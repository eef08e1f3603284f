import MirrorLock
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Descriptors of a folder's files recently opened, as nginx's `open_file_cache` keeps them: a
/// file asked for again within `validity` is sent from a duplicate of the descriptor kept,
/// without resolving its path again (a `dup` instead of `openat2` and `fstat`). Past `validity`
/// the path is opened afresh, so a file replaced in the folder is served in its new version
/// within that time. Holds at most `capacity` descriptors; when full, it lets all of them go.
final class DescriptorCache: Sendable {
    private struct Entry {
        let descriptor: Int32
        let size: Int
        let opened: NIODeadline
    }

    private let capacity: Int
    private let validity: TimeAmount
    private let now: @Sendable () -> NIODeadline
    private let entries = Locked<[String: Entry]>([:])

    /// - Parameter now: the clock (a test's own, to pass `validity` without waiting for it).
    init(capacity: Int, validity: TimeAmount, now: @escaping @Sendable () -> NIODeadline = { .now() }) {
        self.capacity = capacity
        self.validity = validity
        self.now = now
    }

    deinit {
        entries.withLock { entries in
            for entry in entries.values { close(entry.descriptor) }
        }
    }

    /// A descriptor of its own (the caller closes it) for `path` and the file's size, when one
    /// was kept less than `validity` ago.
    func open(_ path: String) -> (handle: NIOFileHandle, size: Int)? {
        entries.withLock { entries in
            guard let entry = entries[path], now() - entry.opened < validity else { return nil }
            let copy = fcntl(entry.descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { return nil }
            return (NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy), entry.size)
        }
    }

    /// Keeps a duplicate of `descriptor`, just opened for `path`, in place of any kept before.
    func keep(_ descriptor: Int32, size: Int, for path: String) {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return }
        let entry = Entry(descriptor: copy, size: size, opened: now())
        entries.withLock { entries in
            if entries[path] == nil, entries.count >= capacity {
                for entry in entries.values { close(entry.descriptor) }
                entries.removeAll(keepingCapacity: true)
            }
            if let old = entries.updateValue(entry, forKey: path) { close(old.descriptor) }
        }
    }
}
