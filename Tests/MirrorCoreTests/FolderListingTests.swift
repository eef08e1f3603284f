import Foundation
import MirrorCore
import Testing

@Suite("Folder listings")
struct FolderListingTests {
    /// Names of every length up to the file system's limit, and thousands of short ones, so that
    /// readdir's buffer fills up to within a few bytes of its end with a short record: each name
    /// is read whole and no further (under AddressSanitizer, a read of the name field's full 256
    /// bytes runs past that last record).
    @Test func readsEveryNameWholeAndNoFurther() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("listing-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var expected: Set<String> = ["é-ü-名前"]
        for length in 1...255 {
            expected.insert(String(repeating: "n", count: length - 1) + String(length % 10))
        }
        for number in 0..<3000 { expected.insert("s\(number)") }
        for name in expected { #expect(FileManager.default.createFile(atPath: root + "/" + name, contents: nil)) }
        try FileManager.default.createDirectory(atPath: root + "/folder", withIntermediateDirectories: false)
        expected.insert("folder")

        let names = FolderListing.names(in: root)
        #expect(Set(names) == expected)
        #expect(names.count == expected.count)
        #expect(FolderListing.names(in: root + "/missing").isEmpty)
    }
}
