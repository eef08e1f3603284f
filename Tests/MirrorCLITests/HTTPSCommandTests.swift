import Foundation
import MirrorTestSupport
import Testing

/// `mirror crawl` of HTTPS origins whose certificates come from an authority made in the test.
@Suite("mirror crawl over HTTPS")
final class HTTPSCommandTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-https-\(UUID().uuidString)").path
    let authority = try! TestCertificateAuthority()

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    func crawl(
        _ url: String, _ options: [String], output: String = "out",
        environment: [String: String] = [:]
    ) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            MirrorProcess.executable,
            ["crawl", url, "-o", root + "/" + output, "--cache", root + "/cache-" + output] + options,
            environment: environment)
    }

    @Test func aPrivateAuthorityIsTrustedWithCACertificateOrSSLCertFile() async throws {
        try await TestOrigin.with(site: .named("plain"), tls: try authority.serverIdentity()) { origin in
            try await authority.withCertificateFile { file in
                let withOption = try await crawl(origin.url("/"), ["--ca-certificate", file], output: "option")
                #expect(withOption.status == 0, "\(withOption.stderr)")
                #expect(withOption.stderr.contains("saved 9 files"))
                let withEnvironment = try await crawl(origin.url("/"), [], output: "environment", environment: ["SSL_CERT_FILE": file])
                #expect(withEnvironment.status == 0, "\(withEnvironment.stderr)")
                #expect(withEnvironment.stderr.contains("saved 9 files"))
            }
        }
    }

    /// Refused at the first handshake, with what helps, and exit code 4 — whether robots.txt or the
    /// page meets the certificate first; the page is not retried (0.5 + 1 + 2 s with --retries 3).
    @Test func anUntrustedCertificateFailsAtOnceWithTheNetworkExitCode() async throws {
        try await TestOrigin.with(site: .named("plain"), tls: try authority.serverIdentity()) { origin in
            let refusal =
                "\(origin.baseURL): the certificate is not trusted (its issuer, CN=mirror test CA, is not in the trust store); "
                + "pass --ca-certificate FILE with that authority's PEM certificate, or --no-check-certificate (insecure)"
            let viaRobots = try await crawl(origin.url("/"), [], output: "robots")
            #expect(viaRobots.status == 4)
            #expect(viaRobots.stderr.contains(refusal), "\(viaRobots.stderr)")

            let connections = origin.connections
            let page = try await crawl(origin.url("/"), ["--ignore-robots", "--retries", "3"], output: "page")
            #expect(page.status == 4)
            #expect(page.stderr.contains("mirror: nothing could be fetched (\(refusal))"), "\(page.stderr)")
            #expect(origin.connections - connections == 2, "one refused handshake, one to read the certificate: no retry")
            #expect(origin.requests.isEmpty)
        }
    }

    @Test func noCheckCertificateCrawlsWithOneWarning() async throws {
        try await TestOrigin.with(site: .named("plain"), tls: try authority.serverIdentity(names: ["elsewhere.example"])) { origin in
            let result = try await crawl(origin.url("/"), ["--no-check-certificate"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("saved 9 files"))
            #expect(result.stderr.components(separatedBy: "warning: --no-check-certificate").count == 2, "\(result.stderr)")
        }
    }

    @Test func anUnusableCAFileIsAUsageError() async throws {
        let result = try await crawl("https://127.0.0.1:1/", ["--ca-certificate", root + "/missing.pem"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot read the CA certificate \(root)/missing.pem"), "\(result.stderr)")
    }
}
