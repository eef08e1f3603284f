import Foundation
import MirrorCore
import Testing

@testable import MirrorCache

@Suite("Checked bodies: bounded, the most recent kept")
struct CheckedBodiesTests {
    private static func stamp(_ inode: UInt64) -> FileStamp {
        FileStamp(device: 0, inode: inode, size: 100, modified: 0, modifiedNanoseconds: 0)
    }

    @Test func keepsTheLastGenerationAndForgetsOlderOnes() {
        let checked = CheckedBodies(generation: 2)
        for (index, digest) in ["a", "b", "c", "d", "e"].enumerated() {
            checked.rememberWritten(digest, Self.stamp(UInt64(index)))
        }
        // Two generations of two: after e, the newer holds e and the older c and d.
        #expect(!checked.contains("a"))
        #expect(!checked.contains("b"))
        #expect(checked.isChecked("c", Self.stamp(2)))
        #expect(checked.isChecked("d", Self.stamp(3)))
        #expect(checked.isChecked("e", Self.stamp(4)))
        #expect(!checked.isChecked("e", Self.stamp(9)))
    }

    @Test func aBodyNotedAgainDoesNotAgeTheOthers() {
        let checked = CheckedBodies(generation: 2)
        checked.rememberWritten("a", Self.stamp(1))
        checked.rememberWritten("b", Self.stamp(2))
        for _ in 0..<10 { checked.rememberWritten("b", Self.stamp(3)) }
        #expect(checked.isChecked("a", Self.stamp(1)))
        #expect(checked.isChecked("b", Self.stamp(3)))
    }
}
