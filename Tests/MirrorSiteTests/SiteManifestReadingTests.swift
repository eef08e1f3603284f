import Foundation
import Testing

@testable import MirrorSite

@Suite("A manifest read back")
struct SiteManifestReadingTests {
    /// A manifest of `count` resources whose SHA-256 is missing from every one, as JSON.
    static func manifestMissingDigests(resources count: Int) throws -> [UInt8] {
        var text: [UInt8] = []
        try SiteManifestWritingTests.manifest(resources: count).writeJSON { text += $0 }
        return Array(String(decoding: text, as: UTF8.self).replacingOccurrences(of: "\"sha256\"", with: "\"sha257\"").utf8)
    }

    /// Every resource is at fault; the one named is the first in URL order, however often the
    /// same bytes are decoded (the JSON object's order differs from one decoding to the next).
    @Test func aManifestWithSeveralFaultsIsRefusedForTheFirstInURLOrder() throws {
        let bytes = try Self.manifestMissingDigests(resources: 40)
        let first = SiteManifestWritingTests.manifest(resources: 40).resources.keys.min()!
        // Allocations of other sizes in between move the decoder's dictionaries, whose order
        // depends on where they are.
        var moved: [[Int]] = []
        for round in 0..<20 {
            moved.append(Array(repeating: round, count: round * 37))
            #expect {
                _ = try SiteManifest.decode(bytes)
            } throws: { error in
                "\(error)".contains("Path: resources.") && "\(error)".contains(first)
            }
        }
        #expect(moved.count == 20)
    }

    @Test func aManifestWithoutItsResourcesIsRefused() throws {
        #expect(throws: SiteManifest.ReadError.self) { try SiteManifest.decode(Array(#"{"version": 2, "redirects": {}}"#.utf8)) }
    }
}
