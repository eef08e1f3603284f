import Foundation
import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorCrawlTesting
import MirrorTestSupport
import Testing

@testable import MirrorHTTP

/// Crawls over real TLS: origins with certificates from an authority made in the test.
@Suite("HTTPS crawls", .serialized)
struct HTTPSCrawlTests {
    static let authority = try! TestCertificateAuthority()
    /// Trusts `authority`; shared by the tests and never shut down, like `CrawlHarness`'s own.
    static let transport: AsyncHTTPClientTransport = {
        let file = try! authority.certificateFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        return AsyncHTTPClientTransport(security: try! TransportSecurity(caCertificateFiles: [file], environment: [:]))
    }()
    var authority: TestCertificateAuthority { Self.authority }
    var transport: AsyncHTTPClientTransport { Self.transport }

    @Test func crawlsAnHTTPSSite() async throws {
        let origin = try await TestOrigin.start(site: .named("plain"), tls: try authority.serverIdentity())
        try await CrawlHarness.with(transport: transport) { harness in
            let report = try await harness.crawl([origin.url("/")])
            try await origin.shutdown()
            #expect(origin.baseURL.hasPrefix("https://"))
            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.fetched == 9)
            #expect(try harness.manifest().resources.keys.contains(origin.url("/about.html")))
        }
    }

    @Test func crawlsASiteMixingHTTPAndHTTPSHosts() async throws {
        let plain = try await TestOrigin.start()
        let secure = try await TestOrigin.start(tls: try authority.serverIdentity())
        plain.route("/") { _ in .html("<img src='\(secure.url("/logo.png"))'><a href='\(secure.url("/page.html"))'>docs</a>") }
        secure.route("/logo.png") { _ in .content("png", type: "image/png") }
        secure.route("/page.html") { _ in .html("<a href='\(plain.url("/back.html"))'>back</a>") }
        plain.route("/back.html") { _ in .html("back on HTTP") }
        try await CrawlHarness.with(transport: transport) { harness in
            let report = try await harness.crawl([plain.url("/")]) { $0.allowedHosts = [HostPattern(secure.authority)!] }
            try await plain.shutdown()
            try await secure.shutdown()
            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(
                Set(try harness.manifest().resources.keys) == [
                    plain.url("/"), plain.url("/back.html"), secure.url("/logo.png"), secure.url("/page.html"),
                ])
        }
    }

    @Test func followsARedirectFromHTTPToHTTPS() async throws {
        let plain = try await TestOrigin.start()
        let secure = try await TestOrigin.start(site: .named("plain"), tls: try authority.serverIdentity())
        plain.route("/") { _ in .redirect(to: secure.url("/"), status: 301) }
        try await CrawlHarness.with(transport: transport) { harness in
            let report = try await harness.crawl([plain.url("/")]) { $0.allowedHosts = [HostPattern(secure.authority)!] }
            try await plain.shutdown()
            try await secure.shutdown()
            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.redirects == 1)
            #expect(report.fetched == 9)
            let manifest = try harness.manifest()
            #expect(manifest.redirects[plain.url("/")]?.location == secure.url("/"))
            #expect(manifest.path(for: plain.url("/")) == manifest.resources[secure.url("/")]?.path)
        }
    }

    /// A certificate from an authority nobody trusts is refused at its first handshake, without
    /// the retries (0.5 s, 1 s, 2 s) that connection errors get; the failure says why.
    @Test func anUntrustedCertificateFailsAtOnceInPlainWords() async throws {
        let stranger = try TestCertificateAuthority(name: "stranger CA")
        let origin = try await TestOrigin.start(tls: try stranger.serverIdentity())
        origin.route("/") { _ in .html("secret") }
        let report = try await CrawlHarness.with(transport: transport) { harness in
            try await harness.crawl([origin.url("/")]) {
                $0.obeyRobots = false
                $0.retries = 3
            }
        }
        try await origin.shutdown()
        #expect(report.fetched == 0)
        #expect(
            report.failures.map(\.message) == [
                "\(origin.baseURL): the certificate is not trusted (its issuer, CN=stranger CA, is not in the trust store); "
                    + "pass --ca-certificate FILE with that authority's PEM certificate, or --no-check-certificate (insecure)"
            ])
        // One refused handshake, and the one that read the certificate to say why: no retry.
        #expect(origin.connections == 2)
        #expect(origin.requests.isEmpty)
    }

    @Test func anExpiredCertificateSaysWhen() async throws {
        let expiry = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86400).rounded(.down) * 86400 - 86400 * 3)
        let origin = try await TestOrigin.start(tls: try authority.serverIdentity(validity: expiry - 86400 * 30...expiry))
        let error = await refusal(from: origin)
        try await origin.shutdown()
        #expect(error?.problem == .expired(on: expiry))
        #expect(error?.description.contains("the certificate expired on \(expiry.formatted(.iso8601.year().month().day()))") == true)
    }

    @Test func aCertificateForAnotherNameNamesIt() async throws {
        let origin = try await TestOrigin.start(tls: try authority.serverIdentity(names: ["docs.example.org"]))
        let error = await refusal(from: origin)
        try await origin.shutdown()
        #expect(error?.problem == .wrongName(names: ["docs.example.org"]))
        #expect(
            error?.description.hasPrefix(
                "\(origin.baseURL): the certificate is for another name (it is for docs.example.org, not 127.0.0.1)") == true)
    }

    @Test func verificationOffAcceptsAnyCertificate() async throws {
        let stranger = try TestCertificateAuthority(name: "stranger CA")
        let origin = try await TestOrigin.start(tls: try stranger.serverIdentity(names: ["elsewhere.example"]))
        origin.route("/") { _ in .html("hello") }
        let insecure = try TransportSecurity(caCertificateFiles: [], verifiesCertificates: false, environment: [:])
        let response = try await Self.send(TransportRequest(url: origin.url("/")), security: insecure)
        try await origin.shutdown()
        #expect(response.status == 200)
    }

    @Test func sslCertFileReplacesTheSystemTrustStore() async throws {
        let origin = try await TestOrigin.start(tls: try authority.serverIdentity())
        origin.route("/") { _ in .html("hello") }
        let response = try await authority.withCertificateFile { file in
            let viaEnvironment = try TransportSecurity(caCertificateFiles: [], environment: ["SSL_CERT_FILE": file])
            return try await Self.send(TransportRequest(url: origin.url("/")), security: viaEnvironment)
        }
        try await origin.shutdown()
        #expect(response.status == 200)
    }

    /// On a system without a trust store (no ca-certificates): http works, https is refused
    /// before it starts with what to install, and the authorities --ca-certificate names are
    /// trusted alone.
    @Test func withoutASystemTrustStoreHTTPWorksAndHTTPSSaysWhatToInstall() async throws {
        let none = "this system has no store of trusted certificate authorities"
        let bare = try TransportSecurity(caCertificateFiles: [], environment: [:], systemStore: none)
        #expect(bare.missingTrustStore == none)
        let plain = try await TestOrigin.start()
        plain.route("/") { _ in .html("plain") }
        #expect(try await Self.send(TransportRequest(url: plain.url("/")), security: bare).status == 200)
        try await plain.shutdown()
        let origin = try await TestOrigin.start(tls: try authority.serverIdentity())
        origin.route("/") { _ in .html("secure") }
        await #expect(throws: TrustStoreMissing(url: origin.url("/"), reason: none)) {
            try await Self.send(TransportRequest(url: origin.url("/")), security: bare)
        }
        #expect(origin.connections == 0)
        let named = try await authority.withCertificateFile { file in
            let security = try TransportSecurity(caCertificateFiles: [file], environment: [:], systemStore: none)
            #expect(security.missingTrustStore == nil)
            return try await Self.send(TransportRequest(url: origin.url("/")), security: security)
        }
        try await origin.shutdown()
        #expect(named.status == 200)
    }

    @Test func unusableTrustFilesAreNamed() throws {
        let missing = "/nonexistent/ca.pem"
        #expect(throws: TransportSecurity.Failure.self) { try TransportSecurity(caCertificateFiles: [missing], environment: [:]) }
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("not-pem-\(UUID().uuidString).pem").path
        try "hello".write(toFile: notPEM, atomically: true, encoding: .utf8)
        do {
            _ = try TransportSecurity(caCertificateFiles: [notPEM], environment: [:])
            Issue.record("a file without certificates was accepted")
        } catch let failure as TransportSecurity.Failure {
            #expect(failure.message == "\(notPEM) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        #expect(throws: TransportSecurity.Failure.self) {
            try TransportSecurity(caCertificateFiles: [], environment: ["SSL_CERT_DIR": notPEM])
        }
        try? FileManager.default.removeItem(atPath: notPEM)
    }

    /// Sends one request through a transport of its own, shut down afterwards.
    static func send(_ request: TransportRequest, security: TransportSecurity) async throws -> TransportResponse {
        let transport = AsyncHTTPClientTransport(security: security)
        let result: Result<TransportResponse, any Error>
        do { result = .success(try await transport.send(request)) } catch { result = .failure(error) }
        try await transport.shutdown()
        return try result.get()
    }

    /// The error a request to `origin` fails with, when it is a certificate refusal.
    private func refusal(from origin: TestOrigin) async -> CertificateError? {
        do {
            _ = try await transport.send(TransportRequest(url: origin.url("/"), timeout: .seconds(5)))
            return nil
        } catch {
            return error as? CertificateError
        }
    }
}
