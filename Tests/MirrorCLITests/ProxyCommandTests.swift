import Foundation
import MirrorTestSupport
import Testing

/// `mirror proxy` run as a user runs it: record through it, stop it, replay with the origin gone.
@Suite("mirror proxy")
struct ProxyCommandTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-proxy-\(UUID().uuidString)").path

    @Test func recordsThenReplaysWithTheOriginGone() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let origin = try await TestOrigin.start()
        origin.route("/page") { request in
            .html("<p>page \(request.query ?? "")</p>", headers: [("Cache-Control", "no-cache"), ("ETag", "\"1\"")])
        }
        let arguments = ["--upstream", origin.baseURL, "--cache", root + "/cache", "--ignore-param", "utm_*"]
        let recorder = try ServerProcess("proxy", arguments, log: root + "/record.log")
        let url = try await recorder.waitForURL()
        #expect(url == "http://127.0.0.1:\(recorder.port)/")
        let recorded = try await recorder.get("/page?a=1&utm_source=x")
        #expect(recorded.status == 200)
        #expect(recorded.header("cache-status") == "mirror; fwd=uri-miss; fwd-status=200; stored")
        #expect(try await recorder.interruptAndWait() == 0)
        #expect(recorder.output.contains("GET /page?a=1&utm_source=x 200 \(recorded.body.count) "), "\(recorder.output)")
        try await origin.shutdown()
        let connections = origin.connections

        let replay = try ServerProcess("proxy", arguments + ["--mode", "replay", "--on-miss", "404"], log: root + "/replay.log")
        _ = try await replay.waitForURL()
        let replayed = try await replay.get("/page?a=1&utm_source=other")
        #expect(replayed.status == 200)
        #expect(replayed.body == recorded.body)
        let miss = try await replay.get("/elsewhere")
        #expect(miss.status == 404)
        #expect(miss.text.contains(origin.url("/elsewhere")))
        #expect(try await replay.interruptAndWait() == 0)
        #expect(replay.output.contains("GET /elsewhere 404 "), "\(replay.output)")
        #expect(replay.output.contains("replay-miss"), "the log says why")
        #expect(origin.connections == connections)
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test func contradictoryOptionsAreUsageErrors() async throws {
        for arguments in [
            ["--on-miss", "500"], ["--mode", "replay", "--refresh"], ["--upstream", "ftp://x/"], ["--max-age", "1d", "--refresh"],
            ["--mitm", "--upstream", "http://127.0.0.1:1/"],
        ] {
            let result = try await MirrorProcess.run(["proxy"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }

    /// `mirror proxy ca` creates the CA once (key readable by its owner only) and prints the
    /// SPKI hash that Chromium takes, as openssl computes it.
    @Test func caPrintsTheCertificateAndItsSPKIHash() async throws {
        let first = try await MirrorProcess.run(["proxy", "ca", "--cache", root])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await MirrorProcess.run(["proxy", "ca", "--cache", root])
        #expect(second.stdout == first.stdout, "created once, then reused")
        let lines = first.stdout.split(separator: "\n")
        #expect(lines.first == "certificate: \(root)/mitm/ca.pem")
        let hash = try #require(lines.last?.split(separator: " ").last.map(String.init))
        let key = try FileManager.default.attributesOfItem(atPath: root + "/mitm/ca-key.pem")
        #expect((key[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let openssl = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                """
                openssl x509 -in '\(root)/mitm/ca.pem' -pubkey -noout | openssl pkey -pubin -outform der \
                | openssl dgst -sha256 -binary | base64
                """,
            ])
        #expect(openssl.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == hash, "\(openssl.stderr)")
        try? FileManager.default.removeItem(atPath: root)
    }
}
