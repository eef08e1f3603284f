import Foundation
import MirrorSite
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import MirrorServe

/// A folder's files asked for again are sent from the descriptor kept when they were opened,
/// for a bounded time, then opened by their path again.
@Suite("mirror serve: a folder's recent descriptors")
struct DescriptorCacheTests {
    @Test func aReplacedFileIsServedInItsNewVersionOnceTheKeptDescriptorExpires() async throws {
        // The cache's clock moves only when the test moves it.
        let clock = NIOLockedValueBox(NIODeadline.now())
        try await ServedMirror.with(files: {
            try FolderFiles(folder: $0, opensBeneath: true, descriptors: (capacity: 16, validity: .seconds(1))) {
                clock.withLockedValue { $0 }
            }
        }) { mirror in
            let path = try #require(mirror.manifest.path(for: mirror.origin.url("/frame.html")))
            let old = try mirror.file(path)
            #expect(try await mirror.request("/frame.html").body == old)
            // A re-crawl replaces a file by renaming a new one over it; the same size passes the size check.
            let new = Array(old.reversed())
            try Data(new).write(to: URL(fileURLWithPath: mirror.folder + "/" + path + ".new"))
            #expect(rename(mirror.folder + "/" + path + ".new", mirror.folder + "/" + path) == 0)
            #expect(try await mirror.request("/frame.html").body == old, "the kept descriptor is still the old file's")
            clock.withLockedValue { $0 = $0 + .milliseconds(999) }
            #expect(try await mirror.request("/frame.html").body == old, "kept for a second")
            clock.withLockedValue { $0 = $0 + .milliseconds(2) }
            #expect(try await mirror.request("/frame.html").body == new)
        }
    }

    @Test func pastItsCapacityEveryFileIsStillServed() async throws {
        try await ServedMirror.with(files: {
            try FolderFiles(folder: $0, opensBeneath: true, descriptors: (capacity: 2, validity: .seconds(60)))
        }) { mirror in
            let saved = mirror.manifest.resources.values.filter { $0.status == 200 }
            #expect(saved.count > 4)
            for _ in 0..<2 {
                for resource in saved {
                    let response = try await mirror.request(ServedMirror.encoded(resource.path))
                    let bytes = try mirror.file(resource.path)
                    #expect(response.status == 200 && response.body == bytes, "\(resource.path)")
                }
            }
        }
    }
}
