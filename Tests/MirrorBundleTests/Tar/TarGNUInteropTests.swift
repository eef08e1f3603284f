import Foundation
import MirrorBundle
import Testing

/// Archives exchanged with GNU tar (/usr/bin/tar) both ways.
@Suite("Tar interoperability with GNU tar", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tar")))
struct TarGNUInteropTests {
    /// Runs GNU tar and returns its standard output; fails on a non-zero exit.
    private func tar(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TarFailure(message: "tar \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
        return String(decoding: text, as: UTF8.self)
    }

    private struct TarFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// A fresh empty directory, removed after `body`.
    private func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tar-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    @Test("GNU tar lists and extracts what TarWriter writes, byte for byte")
    func gnuReadsOurs() throws {
        let sample = TarSample.standard(bigFileSize: 300_000)
        try withTemporaryDirectory { directory in
            let archive = directory + "/ours.tar"
            try Data(try sample.archive()).write(to: URL(fileURLWithPath: archive))
            let listing = try tar(["-tvf", archive])
            for (path, _) in sample.files {
                #expect(listing.contains(path), "tar -tv does not list \(path)")
            }
            #expect(!listing.contains("PaxHeaders"))
            let extracted = directory + "/out"
            try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: false)
            _ = try tar(["-xf", archive, "-C", extracted])
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
    func weReadGNU(format: String) throws {
        // ustar has no room for a 150-byte name (ours has a 300-byte path, which it splits into prefix and name).
        var sample = TarSample.standard(bigFileSize: 200_000)
        if format == "ustar" {
            sample.files.removeAll { $0.path.hasPrefix("nnnn") || $0.path.utf8.count > 155 + 100 }
            sample.files.append(("ustar/" + String(repeating: "p", count: 90) + "/" + String(repeating: "q", count: 90), [9]))
        }
        try withTemporaryDirectory { directory in
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
            _ = try tar(["--format=\(format)", "-cf", archive, "-C", tree, "."])
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: archive)))
            let contents = try TarTestReading.read(bytes, chunkSize: 10_000)
            #expect(contents.files == sample.fileMap)
            #expect(Set(sample.directories).isSubset(of: Set(contents.directories)))
            #expect(!contents.entries.contains { $0.path.hasPrefix(".") || $0.path.hasSuffix("/") })
        }
    }
}
