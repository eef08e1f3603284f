import Foundation
import MirrorCompression

/// A gzip file decompressed on a thread of its own, handed over in chunks through a small
/// bounded queue, so decompressing overlaps with whatever the reader does with the bytes
/// (checking, hashing, writing files). Memory stays flat: at most `depth` chunks wait.
///
/// Unchecked Sendable: the file and the decoder are used by the producing thread only, and
/// everything else under `condition`.
final class InflatedStream: @unchecked Sendable {
    private let input: InputFile
    private let decoder: GzipDecoder
    private let condition = NSCondition()
    private var chunks: [[UInt8]] = []
    private var failure: Error?
    private var isFinished = false
    private var isCancelled = false
    private let depth = 4

    /// Starts decompressing `input` from its start, producing at most `limit` bytes and
    /// recording access points `accessPointSpan` bytes apart when one is given.
    init(input: InputFile, limit: Int, accessPointSpan: Int? = nil) throws {
        self.input = input
        do {
            decoder = try GzipDecoder(limit: limit, accessPointSpan: accessPointSpan)
        } catch {
            throw BundleError.corrupt("\(error)")
        }
        Thread { [self] in produce() }.start()
    }

    deinit { cancel() }

    /// The next chunk of decompressed bytes; nil at the end of a complete gzip stream.
    func next() throws -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && failure == nil && !isFinished { condition.wait() }
        if !chunks.isEmpty {
            condition.signal()
            return chunks.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Where inflating can start again (see `GzipDecoder`); complete once `next()` returned nil.
    var accessPoints: [GzipAccessPoint] {
        condition.lock()
        defer { condition.unlock() }
        precondition(isFinished && failure == nil, "InflatedStream: access points are known at the end")
        return decoder.accessPoints
    }

    /// Stops the producing thread (the reader gave up).
    func cancel() {
        condition.lock()
        isCancelled = true
        condition.broadcast()
        condition.unlock()
    }

    private func produce() {
        do {
            var output: [UInt8] = []
            try input.readChunks(size: 64 << 10) { chunk in
                do {
                    try decoder.decompress(chunk, into: &output)
                } catch {
                    throw BundleError.corrupt("\(error)")
                }
                if output.count >= 512 << 10 {
                    try hand(output)
                    output = []
                }
            }
            do {
                try decoder.finish()
            } catch {
                throw BundleError.corrupt("\(error)")
            }
            if !output.isEmpty { try hand(output) }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    private struct Cancelled: Error {}

    /// Waits for room in the queue, then adds `chunk`.
    private func hand(_ chunk: [UInt8]) throws {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= depth && !isCancelled { condition.wait() }
        if isCancelled { throw Cancelled() }
        chunks.append(chunk)
        condition.signal()
    }

    private func finish(_ error: Error?) {
        condition.lock()
        if !(error is Cancelled) { failure = error }
        isFinished = true
        condition.broadcast()
        condition.unlock()
    }
}
