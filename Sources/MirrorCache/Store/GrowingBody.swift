import MirrorCore
import MirrorLock

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A body still being written to the store, readable while it grows: each reader follows the
/// file at its own pace (reading with `pread` on one descriptor, opened before the store
/// renames or removes the file) and waits for more while the writer is behind. Memory stays
/// flat whatever the size; a reader that stops costs the writer nothing.
final class GrowingBody: Sendable {
    private enum Progress {
        case growing
        case complete
        case failed(any Error)
    }

    private struct State {
        var written = 0
        var progress = Progress.growing
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    let path: String
    private let descriptor: FileDescriptorBox
    private let state = Locked(State())

    /// Opens the file `BodyWriter` is writing.
    init(path: String) throws(CacheError) {
        self.path = path
        do { descriptor = FileDescriptorBox(try PosixFile.open(path, flags: O_RDONLY)) } catch { throw .io(error) }
    }

    /// The writer wrote `count` more bytes.
    func appended(_ count: Int) {
        resume { $0.written += count }
    }

    /// The writer is done: readers get the end of the body once they have read it all.
    func finish() {
        resume { $0.progress = .complete }
    }

    /// The writer failed: readers get `error` once they have read what was written.
    func fail(_ error: any Error) {
        resume { $0.progress = .failed(error) }
    }

    private func resume(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Up to `maxLength` bytes from `offset`, waiting while none are written yet; nil at the end.
    func read(at offset: Int, maxLength: Int) async throws -> [UInt8]? {
        while true {
            let available = try await waitForBytes(after: offset)
            guard available > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: min(maxLength, available))
            var failure: FileSystemError?
            let got = chunk.withUnsafeMutableBytes { buffer in
                do throws(FileSystemError) { return try PosixFile.read(descriptor.value, at: offset, into: buffer, path: path) } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw CacheError.io(failure) }
            if got > 0 { return Array(chunk[0..<got]) }
        }
    }

    /// Returns once the writer is done; throws the writer's error if it failed.
    func completion() async throws {
        var offset = 0
        while case let available = try await waitForBytes(after: offset), available > 0 { offset += available }
    }

    /// How many bytes past `offset` are written, once there is one or the body is over (0).
    private func waitForBytes(after offset: Int) async throws -> Int {
        while true {
            let answer = state.withLock { state -> Result<Int, any Error>? in
                if state.written > offset { return .success(state.written - offset) }
                switch state.progress {
                case .complete: return .success(0)
                case .failed(let error): return .failure(error)
                case .growing: return nil
                }
            }
            if let answer { return try answer.get() }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state -> Bool in
                    guard state.written <= offset, case .growing = state.progress else { return false }
                    state.waiters.append(continuation)
                    return true
                }
                if !waiting { continuation.resume() }
            }
        }
    }
}
