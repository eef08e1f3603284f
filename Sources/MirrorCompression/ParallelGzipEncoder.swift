import Dispatch
import MirrorLock

/// Compresses a stream on every core as a series of independent gzip members, which together
/// are one valid gzip file (`gzip -d` and `tar -xzf` read members one after another).
///
/// A member ends when it holds `memberSize` bytes, or earlier where the caller asks for it with
/// `endMember(ifAtLeast:)` — both decided by the input alone, whatever the sizes of the writes,
/// so the same input and calls always give the same bytes. Memory stays flat: at most about
/// `parallelism` × 2 × `memberSize` bytes wait to be compressed at a time. Each member starts
/// with an empty dictionary, which costs about 0.1–0.5 % of size with 1 MiB members.
public final class ParallelGzipEncoder {
    private let level: Int32
    /// The most a member holds; a change applies from the next byte written.
    public var memberSize: Int
    /// Bytes of complete members that are compressed together, on every core.
    private let batchBytes: Int
    private let output: ([UInt8]) throws -> Void
    private var pending: [[UInt8]] = []
    private var pendingBytes = 0
    private var current: [UInt8]
    private var wroteMember = false

    /// - Parameters:
    ///   - output: receives the compressed bytes, in order.
    public init(
        level: Int32 = 6, memberSize: Int = 1 << 20, parallelism: Int,
        output: @escaping ([UInt8]) throws -> Void
    ) {
        self.level = level
        self.memberSize = memberSize
        self.batchBytes = max(1, parallelism) * 2 * memberSize
        self.output = output
        current = []
        current.reserveCapacity(memberSize)
    }

    /// Adds `bytes` to the stream.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes[...]
        while !rest.isEmpty {
            if current.count >= memberSize { try endMember() }
            let taken = rest.prefix(memberSize - current.count)
            current.append(contentsOf: taken)
            rest = rest.dropFirst(taken.count)
            if current.count == memberSize { try endMember() }
        }
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Ends the member being filled when it already holds at least `minimum` bytes, so that
    /// the next write starts a new one (a reader can then start decompressing right there).
    public func endMember(ifAtLeast minimum: Int) throws {
        if !current.isEmpty && current.count >= minimum { try endMember() }
    }

    /// Compresses what is left (an empty stream still gives one valid, empty member).
    public func finish() throws {
        if !current.isEmpty || (pending.isEmpty && !wroteMember) { pending.append(current) }
        current = []
        try compressPending()
    }

    private func endMember() throws {
        pending.append(current)
        pendingBytes += current.count
        current.removeAll(keepingCapacity: true)
        if pendingBytes >= batchBytes { try compressPending() }
    }

    private func compressPending() throws {
        let inputs = pending
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        let results = Locked([Result<[UInt8], CompressionError>?](repeating: nil, count: inputs.count))
        let level = level
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            let result = inputs[index].withUnsafeBytes { buffer -> Result<[UInt8], CompressionError> in
                do throws(CompressionError) { return .success(try GzipEncoder.compress(buffer, level: level)) } catch {
                    return .failure(error)
                }
            }
            results.withLock { $0[index] = result }
        }
        for result in results.withLock({ $0 }) {
            guard let result else { continue }
            try output(try result.get())
            wroteMember = true
        }
    }
}
