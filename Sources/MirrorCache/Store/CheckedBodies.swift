import Foundation
import MirrorCore
import MirrorLock

/// The stored bodies whose digest this process has checked, each with the stamp of the file it
/// read: that same file, unchanged, is not hashed again, and may be handed out as a descriptor
/// for the kernel to send (`ResponseBody.openCheckedFile`). A file rewritten or replaced has
/// another stamp, and is checked again when next read.
///
/// Bounded: it keeps the last `generation` to `2 × generation` bodies noted (two generations;
/// when the newer is full, the older is dropped), so a crawl of 100,000 pages does not hold a
/// stamp for each (15 MB), and a body is hashed again only after that many others were noted.
final class CheckedBodies: Sendable {
    private struct Stamps {
        /// By digest held as its bytes (40 bytes, where its text is a heap object of 96 too).
        var newer: [HexDigest: FileStamp] = [:]
        var older: [HexDigest: FileStamp] = [:]

        subscript(digest: HexDigest) -> FileStamp? { newer[digest] ?? older[digest] }

        mutating func note(_ digest: HexDigest, _ stamp: FileStamp, generation: Int) {
            if newer.count >= generation && newer[digest] == nil {
                older = newer
                newer = [:]
            }
            newer[digest] = stamp
        }
    }

    private let stamps = Locked(Stamps())
    private let generation: Int

    init(generation: Int = 16384) {
        self.generation = generation
    }

    func contains(_ digest: String) -> Bool {
        let digest = HexDigest(digest)
        return stamps.withLock { $0[digest] != nil }
    }

    func isChecked(_ digest: String, _ stamp: FileStamp) -> Bool {
        let digest = HexDigest(digest)
        return stamps.withLock { $0[digest] } == stamp
    }

    /// Notes that the file with `stamp` held the bytes of `digest`. As git's "racy clean" rule:
    /// a file modified in the last seconds could change again within the same timestamp tick,
    /// unseen; it is remembered only once older.
    func remember(_ digest: String, _ stamp: FileStamp) {
        guard stamp.modified < Int64(Date().timeIntervalSince1970) - 2 else { return }
        rememberWritten(digest, stamp)
    }

    /// Notes that this process wrote the file with `stamp` and hashed its bytes as it wrote
    /// them, so that reading it back (a crawl's parse, its folder's hard link) does not hash it
    /// again. No racy-clean wait here: only a change by another process within the same clock
    /// tick as the last write, keeping the size, would go unseen — the same window as between
    /// any check and the use of what it checked.
    func rememberWritten(_ digest: String, _ stamp: FileStamp) {
        let digest = HexDigest(digest)
        stamps.withLock { $0.note(digest, stamp, generation: generation) }
    }
}
