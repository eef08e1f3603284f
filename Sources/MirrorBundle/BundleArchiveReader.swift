import MirrorCompression
import MirrorLock

extension BundleArchive {
    /// Hands out one file's bytes, or a range of them, in order, in chunks of at most
    /// `BundleArchive.chunkSize`. A reader serves one response: it holds a zlib stream (about
    /// 110 KiB) until dropped. Calls may come from any thread, one at a time (a lock keeps them
    /// apart); each blocks on the disk and on inflating, so call it off an event loop.
    public final class Reader: Sendable {
        private enum Source {
            /// A small file read whole; `position` is the next byte to hand out.
            case whole([UInt8], position: Int)
            case inflating(GzipRangeReader)
        }

        public let path: String
        /// The bytes this reader hands out, as offsets in the file.
        public let range: Range<Int>
        private let source: Locked<Source>

        init(path: String, range: Range<Int>, whole bytes: [UInt8]) {
            self.path = path
            self.range = range
            source = Locked(.whole(bytes, position: range.lowerBound))
        }

        init(path: String, range: Range<Int>, inflating inflater: consuming sending GzipRangeReader) {
            self.path = path
            self.range = range
            source = Locked(.inflating(inflater))
        }

        /// The next bytes of the range; nil once all were handed out.
        /// - Throws: `BundleError.corrupt` or `.io` when the bundle cannot be read any more.
        public func next() throws -> [UInt8]? {
            try source.withLock { source in
                switch source {
                case .whole(let bytes, let position):
                    guard position < range.upperBound else { return nil }
                    let end = min(position + BundleArchive.chunkSize, range.upperBound)
                    source = .whole(bytes, position: end)
                    return position == 0 && end == bytes.count ? bytes : Array(bytes[position..<end])
                case .inflating(let inflater):
                    return try BundleArchive.reading(path) { try inflater.next(maxCount: BundleArchive.chunkSize) }
                }
            }
        }
    }
}
