import Foundation
import MirrorTestSupport
import Testing

/// `kill -9` of a real `mirror crawl … --bundle` process at random moments of every phase,
/// then `--resume`, gives the folder an uninterrupted crawl gives, with almost no request
/// repeated. The seed comes from `MIRROR_KILL_SEED` when set, else it is random and printed
/// with any failure, so a failing series replays.
@Suite("kill -9 and --resume")
final class KillResumeTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("kill-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Where in a run the kill lands: after the N-th request line, or once a phase began.
    enum Moment: CustomStringConvertible {
        case fetching(afterRequests: Int)
        case phase(String)

        var description: String {
            switch self {
            case .fetching(let count): return "fetching after \(count) requests"
            case .phase(let name): return name
            }
        }
    }

    @Test func killedAtRandomMomentsThenResumedGivesTheUninterruptedFolder() async throws {
        let seed = ProcessInfo.processInfo.environment["MIRROR_KILL_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SeededGenerator(seed: seed)
        let site = try GeneratedSite.write(pages: 600, to: root + "/site")
        try await TestOrigin.with(site: FixtureSite(root: site)) { origin in
            // Only requests in flight at a kill are sent again, at most `--concurrency` per kill while
            // fetching: 6 × 2 stays within 2 % of ~670 requests however slow the loaded machine makes
            // them. A generous timeout: the origin shares two cores with every other test of the run.
            let common = [origin.url("/"), "--concurrency", "2", "--per-host", "2", "--verbose", "--timeout", "120"]

            let reference = try await MirrorProcess.run(
                ["crawl"] + common + [
                    "-o", root + "/reference", "--cache", root + "/reference-cache",
                    "--bundle", root + "/reference.tar.gz",
                ])
            try #require(reference.status == 0, "\(reference.stderr.suffix(2000))")
            let referenceRequests = origin.requests.count
            try #require(referenceRequests > 600)

            var kills: [String] = []
            var attempts = 0
            let arguments = ["crawl"] + common + ["-o", root + "/out", "--cache", root + "/cache", "--bundle", root + "/out.tar.gz"]
            while kills.count < 12 && attempts < 60 {
                // Six kills while fetching (each run gets a little further), then the later phases.
                let moment: Moment =
                    kills.count < 6
                    ? .fetching(afterRequests: Int.random(in: 1...60, using: &random))
                    : Bool.random(using: &random) ? .phase("finishing the folder") : .phase("packing")
                let delay = Duration.microseconds(Int.random(in: 0...30_000, using: &random))
                // Watched from Dispatch's threads: on a loaded run, a watcher on the cooperative pool
                // can wake only after the child has finished, and the kill never lands.
                let killed = try await withTaskExecutorPreference(OffPoolExecutor.shared) {
                    try await runAndKill(attempts == 0 ? arguments : arguments + ["--resume"], at: moment, after: delay)
                }
                if killed { kills.append("\(moment) + \(delay)") }
                attempts += 1
                if killed, case .phase("packing") = moment, FileManager.default.fileExists(atPath: root + "/out.tar.gz") {
                    let check = try await MirrorProcess.run(["unpack", "--check", root + "/out.tar.gz"])
                    #expect(check.status == 0, "seed \(seed): a killed pack left a damaged bundle: \(check.stderr)")
                }
            }
            #expect(kills.count >= 10, "seed \(seed): only \(kills.count) kills landed in \(attempts) runs")
            let last = try await MirrorProcess.run(arguments + ["--resume"])
            #expect(last.status == 0, "seed \(seed): the last --resume failed: \(last.stderr.suffix(2000))")
            let again = try await MirrorProcess.run(arguments + ["--resume"])
            #expect(again.status == 0, "seed \(seed): --resume of a finished crawl failed: \(again.stderr.suffix(2000))")

            let context = "seed \(seed), kills: \(kills.joined(separator: "; "))"
            let expected = FolderContents.files(root + "/reference", excluding: [".mirror/"])
            let actual = FolderContents.files(root + "/out", excluding: [".mirror/"])
            #expect(expected.count > 600)
            #expect(Set(actual.keys) == Set(expected.keys), "\(context): different files")
            let differing = expected.keys.filter { actual[$0] != nil && actual[$0] != expected[$0] }.sorted()
            #expect(differing.isEmpty, "\(context): \(differing.count) files differ, first \(differing.prefix(5))")
            #expect(try ManifestSummary(root + "/out") == ManifestSummary(root + "/reference"), "\(context): the manifests differ")

            let seriesRequests = origin.requests.dropFirst(referenceRequests).map(\.path)
            let repeated = seriesRequests.count - Set(seriesRequests).count
            #expect(
                Double(repeated) <= 0.02 * Double(referenceRequests),
                "\(context): \(repeated) of \(referenceRequests) requests repeated")
            let check = try await MirrorProcess.run(["unpack", "--check", root + "/out.tar.gz"])
            #expect(check.status == 0, "\(context): \(check.stderr)")
            let verify = try await MirrorProcess.run(["cache", "verify", "--cache", root + "/cache"])
            #expect(verify.status == 0, "\(context): \(verify.stdout) \(verify.stderr)")
            print("kill -9 series, \(context): \(repeated) of \(referenceRequests) requests repeated")
        }
    }

    /// Runs `mirror` with `arguments` and SIGKILLs it `delay` after `moment` shows in its
    /// `--verbose` log; false when it ended before that.
    private func runAndKill(_ arguments: [String], at moment: Moment, after delay: Duration) async throws -> Bool {
        let log = root + "/stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = try Subprocess(MirrorProcess.executable.path, arguments, stderr: .file(log))
        while process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let reached: Bool =
                switch moment {
                case .fetching(let count): text.components(separatedBy: "mirror: GET ").count > count
                case .phase(let name): text.contains("mirror: -- \(name)")
                }
            if reached {
                try await Task.sleep(for: delay)
                guard process.isRunning else { break }
                process.signal(SIGKILL)
                return try await process.exit(polling: .milliseconds(2)) == .signalled(SIGKILL)
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        return false
    }
}

/// What two crawls of the same site must agree on in their manifests: every URL's file,
/// status, type, size and digests, the redirects and the index — not the times they ran.
struct ManifestSummary: Equatable {
    let resources: [String: String]
    let redirects: [String: String]
    let index: String

    init(_ folder: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/.mirror/manifest.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func describe(_ value: Any?, _ keys: [String]) -> String {
            let object = value as? [String: Any] ?? [:]
            return keys.map { "\($0)=\(object[$0].map { "\($0)" } ?? "-")" }.joined(separator: " ")
        }
        resources = (json["resources"] as? [String: Any] ?? [:]).mapValues {
            describe($0, ["path", "status", "contentType", "size", "sha256", "etag", "lastModified", "rewrittenFor"])
                + " file: " + describe(($0 as? [String: Any])?["file"], ["sha256", "size"])
        }
        redirects = (json["redirects"] as? [String: Any] ?? [:]).mapValues { describe($0, ["location", "status"]) }
        index = describe(json["index"], ["sha256", "size"])
    }
}
