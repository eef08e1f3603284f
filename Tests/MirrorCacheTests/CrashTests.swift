import Foundation
import MirrorCache
import MirrorTestSupport
import Testing

/// SIGKILL a process writing to the cache at random moments, many times, and check that
/// what is left is consistent: every indexed entry has its exact body, nothing partial
/// is served, and whatever the writer reported as committed survived — also when it commits
/// index rows in groups, where the next store to open the cache indexes what a kill left pending.
@Suite("Cache crash safety")
struct CrashTests {
    static let writer: URL = {
        var folder = Bundle.main.bundleURL
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("mirror-cache-torture")
    }()

    /// The two cases one after the other: each keeps a core busy writing.
    @Test(.serialized, arguments: [false, true])
    func killingAWriterAtRandomMomentsNeverCorruptsTheCache(groupCommit: Bool) async throws {
        let folder = TemporaryDirectory("crash")
        defer { folder.remove() }
        var random = SystemRandomNumberGenerator()
        var kills = 0
        var commits = 0
        let output = folder.path + ".writer-output"
        defer { try? FileManager.default.removeItem(atPath: output) }
        for round in 0..<25 {
            let process = try Subprocess(
                Self.writer.path, [folder.path, String(round * 7919 + 1)] + (groupCommit ? ["group"] : []),
                stdout: .file(output))
            // An async sleep: a blocking one would hold one of the few cooperative threads that
            // the other suites' servers and clients run on.
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...350, using: &random)))
            process.signal(SIGKILL)
            kills += try await process.exit() == .signalled(SIGKILL) ? 1 : 0
            let lines = try String(contentsOfFile: output, encoding: .utf8)
                .split(separator: "\n").map(String.init)
            commits += lines.count { $0.hasPrefix("committed") }
            try check(folder.path, writerSaid: lines)
        }
        #expect(kills == 25)
        #expect(commits > 100, "the writer barely wrote anything before being killed")
    }

    /// Reopens the cache and checks every entry against what the writer must have written.
    private func check(_ directory: String, writerSaid lines: [String]) throws {
        let store = try CacheStore(directory: directory)
        let entries = try store.allEntries()
        for entry in entries {
            let sequence = try #require(Int(entry.headers.first(name: "x-sequence") ?? ""))
            let body = try #require(store.body(of: entry), "indexed entry \(entry.url) has no intact body")
            #expect(try body.collect() == TortureBody.bytes(url: entry.url, sequence: sequence, size: entry.size))
        }
        // The last thing the writer reported for each URL must be reflected: a commit it
        // printed is durable across kill -9 (a later, unprinted commit may have replaced it).
        var last: [String: String] = [:]
        for line in lines {
            let fields = line.split(separator: " ")
            if fields.count >= 2 { last[String(fields[1])] = line }
        }
        for (url, line) in last {
            let stored = try store.entry(for: url, request: [:])
            if line.hasPrefix("committed"), let printed = Int(line.split(separator: " ")[2]) {
                let sequence = Int(stored?.headers.first(name: "x-sequence") ?? "") ?? -1
                #expect(sequence >= printed, "commit \(printed) of \(url) was lost")
            }
        }
        let report = try store.verify(repair: false)
        #expect(report.isHealthy, "verify found \(report)")
    }
}
