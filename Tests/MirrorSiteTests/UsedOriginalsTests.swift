import MirrorCore
import Testing

@testable import MirrorSite

/// Finishing keeps the originals rewritten files need by an 8-byte prefix of their digest.
@Suite("Used originals")
struct UsedOriginalsTests {
    static func digest(_ first: String, _ rest: Character = "0") -> String {
        first + String(repeating: rest, count: 64 - first.count)
    }

    @Test func neededOriginalsAreKeptAndOthersAreNot() {
        var used = UsedOriginals()
        for first in ["ff", "00", "7a", "7a"] { used.note(HexDigest(Self.digest(first))) }
        used.note(HexDigest("not a digest"))
        used.sort()
        #expect(used.contains(Self.digest("ff")))
        #expect(used.contains(Self.digest("00")))
        #expect(used.contains(Self.digest("7a")))
        #expect(!used.contains(Self.digest("7b")))
        #expect(!used.contains(Self.digest("ff00000000000001")))  // differs in the prefix's last digit
        #expect(used.contains(Self.digest("ff000000000000001")))  // beyond it: kept, a file too many
        #expect(used.contains("not a digest"))
        #expect(!used.contains("another name"))
        #expect(!used.contains(Self.digest("FF")))  // not the lower-case hex a digest is named by
        #expect(!used.contains(String(Self.digest("ff").dropLast())))
    }
}
