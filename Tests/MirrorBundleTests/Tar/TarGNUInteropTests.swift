import Foundation
import MirrorBundle
import MirrorTestSupport
import Testing

/// Archives exchanged with GNU tar (/usr/bin/tar) both ways.
@Suite("Tar interoperability with GNU tar", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tar")))
struct TarGNUInteropTests {
    /// Runs GNU tar and returns its standard output; fails on a non-zero exit.
    private func tar(_ arguments: [String]) async throws -> String {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/tar"), arguments, environment: ["LC_ALL": "C.UTF-8"])
        guard result.status == 0 else {
            throw ChildProcess.Failure(message: "tar \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result.stdout
    }

    /// A fresh empty directory, removed after `body`.
    private func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tar-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    @Test("GNU tar lists and extracts what TarWriter writes, byte for byte")
    func gnuReadsOurs() async throws {
        let sample = TarSample.standard(bigFileSize: 300_000)
        try await withTemporaryDirectory { directory in
            let archive = directory + "/ours.tar"
            try Data(try sample.archive()).write(to: URL(fileURLWithPath: archive))
            let listing = try await tar(["-tvf", archive])
            for (path, _) in sample.files {
                #expect(listing.contains(path), "tar -tv does not list \(path)")
            }
            #expect(!listing.contains("PaxHeaders"))
            let extracted = directory + "/out"
            try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: false)
            _ = try await tar(["-xf", archive, "-C", extracted])
            for (path, contents) in sample.files {
                let data = FileManager.default.contents(atPath: extracted + "/" + path)
                #expect(data.map(Array.init) == contents, "\(path) differs after GNU tar extracts it")
            }
            for path in sample.directories {
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: extracted + "/" + path, isDirectory: &isDirectory) && isDirectory.boolValue)
            }
        }
    }

    @Test("TarReader reads what GNU tar writes", arguments: ["gnu", "pax", "ustar"])
    func weReadGNU(format: String) async throws {
        // ustar has no room for a 150-byte name (ours has a 300-byte path, which it splits into prefix and name).
        var sample = TarSample.standard(bigFileSize: 200_000)
        if format == "ustar" {
            sample.files.removeAll { $0.path.hasPrefix("nnnn") || $0.path.utf8.count > 155 + 100 }
            sample.files.append(("ustar/" + String(repeating: "p", count: 90) + "/" + String(repeating: "q", count: 90), [9]))
        }
        try await withTemporaryDirectory { directory in
            let tree = directory + "/tree"
            for path in sample.directories {
                try FileManager.default.createDirectory(atPath: tree + "/" + path, withIntermediateDirectories: true)
            }
            for (path, contents) in sample.files {
                let url = URL(fileURLWithPath: tree + "/" + path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents).write(to: url)
            }
            let archive = directory + "/theirs.tar"
            _ = try await tar(["--format=\(format)", "-cf", archive, "-C", tree, "."])
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: archive)))
            let contents = try TarTestReading.read(bytes, chunkSize: 10_000)
            #expect(contents.files == sample.fileMap)
            #expect(Set(sample.directories).isSubset(of: Set(contents.directories)))
            #expect(!contents.entries.contains { $0.path.hasPrefix(".") || $0.path.hasSuffix("/") })
        }
    }
}
