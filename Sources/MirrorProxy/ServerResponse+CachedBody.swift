public import MirrorCache
public import MirrorHTTPServer
import NIOCore

extension ServerResponse.Body {
    /// `range` of a body from the cache: from memory, as a file the kernel sends (checked before
    /// and unchanged, as from a mirrored folder), or in chunks as it is read or still arrives.
    public static func cached(_ body: ResponseBody, range: Range<Int>) -> ServerResponse.Body {
        if let bytes = body.bytesInMemory {
            let part = bytes[range.clamped(to: 0..<bytes.count)]
            return part.isEmpty ? .empty : .bytes(ByteBuffer(bytes: part))
        }
        if let descriptor = body.openCheckedFile() {
            return .file(NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor), range.clamped(to: 0..<body.count))
        }
        return .stream { writer in
            var offset = 0
            for try await chunk in body.chunks() where offset < range.upperBound {
                let start = max(range.lowerBound - offset, 0)
                let end = min(range.upperBound - offset, chunk.count)
                if start < end { try await writer.write(ByteBuffer(bytes: chunk[start..<end])) }
                offset += chunk.count
            }
        }
    }
}
