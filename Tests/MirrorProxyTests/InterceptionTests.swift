import AsyncHTTPClient
import Foundation
import MirrorHTTP
import MirrorProxy
import MirrorTestSupport
import NIOCore
import NIOSSL
import Testing

/// `--mitm`: HTTPS through CONNECT is decrypted with a certificate from the local CA and
/// answered through the cache, so it records and replays like plain HTTP.
@Suite("mirror proxy: --mitm")
struct InterceptionTests {
    @Test func httpsIsRecordedAndReplayedForAClientThatTrustsTheLocalAuthority() async throws {
        let upstreamAuthority = try TestCertificateAuthority()
        let origin = try await TestOrigin.start(tls: try upstreamAuthority.serverIdentity())
        origin.route("/secret") { _ in .html("over https", headers: [("Cache-Control", "no-cache"), ("ETag", "\"s\"")]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mitm-\(UUID().uuidString)").path
        var configuration = ProxyConfiguration()
        configuration.interception = try InterceptionAuthority(cacheFolder: folder)
        let authority = try #require(configuration.interception)
        let key = try FileManager.default.attributesOfItem(atPath: folder + "/mitm/ca-key.pem")
        #expect((key[.posixPermissions] as? NSNumber)?.intValue == 0o600, "the CA key is its owner's alone")
        #expect(try InterceptionAuthority(cacheFolder: folder).spkiSHA256 == authority.spkiSHA256, "created once, then reused")
        let trust = try await upstreamAuthority.withCertificateFile { try TransportSecurity(caCertificateFiles: [$0], environment: [:]) }
        let recorder = try await ProxyHarness.start(configuration, cacheFolder: folder, security: trust)

        try await Self.using(Self.client(proxyPort: recorder.port, trusting: authority.certificatePath)) { trusting in
            let recorded = try await trusting.execute(
                HTTPClientRequest(url: origin.url("/secret")), timeout: .seconds(ProxyHarness.exchangeSeconds))
            #expect(recorded.status == .ok)
            #expect(recorded.headers.first(name: "cache-status") == "mirror; fwd=uri-miss; fwd-status=200; stored")
            #expect(String(buffer: try await recorded.body.collect(upTo: 1 << 20)) == "over https")
        }
        try await Self.using(Self.client(proxyPort: recorder.port, trusting: nil)) { untrusting in
            await #expect(throws: (any Error).self, "a client that does not trust the local CA refuses the minted certificate") {
                _ = try await untrusting.execute(
                    HTTPClientRequest(url: origin.url("/secret")), timeout: .seconds(ProxyHarness.exchangeSeconds))
            }
        }
        await recorder.stop(keepingCache: true)
        try await origin.shutdown()
        let connections = origin.connections

        var replaying = configuration
        replaying.mode = .replay
        let replay = try await ProxyHarness.start(replaying, cacheFolder: folder, security: trust)
        try await Self.using(Self.client(proxyPort: replay.port, trusting: authority.certificatePath)) { client in
            let replayed = try await client.execute(
                HTTPClientRequest(url: origin.url("/secret")), timeout: .seconds(ProxyHarness.exchangeSeconds))
            #expect(replayed.status == .ok)
            #expect(String(buffer: try await replayed.body.collect(upTo: 1 << 20)) == "over https")
        }
        #expect(origin.connections == connections)
        await replay.stop()
    }

    /// A stored body checked before is sent by the kernel on a plain connection; inside a TLS
    /// tunnel the server must read it and encrypt it instead.
    @Test func aCheckedStoredFileIsEncryptedInsideTheTunnel() async throws {
        let upstreamAuthority = try TestCertificateAuthority()
        let origin = try await TestOrigin.start(tls: try upstreamAuthority.serverIdentity())
        let big = String((0..<300_000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })
        origin.route("/big") { _ in .html(big, headers: [("Cache-Control", "max-age=3600")]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mitm-\(UUID().uuidString)").path
        var configuration = ProxyConfiguration()
        configuration.interception = try InterceptionAuthority(cacheFolder: folder)
        let authority = try #require(configuration.interception)
        let trust = try await upstreamAuthority.withCertificateFile { try TransportSecurity(caCertificateFiles: [$0], environment: [:]) }
        let proxy = try await ProxyHarness.start(configuration, cacheFolder: folder, security: trust)
        try await Self.using(Self.client(proxyPort: proxy.port, trusting: authority.certificatePath)) { client in
            var statuses: [String] = []
            for round in 0..<3 {
                let response = try await client.execute(
                    HTTPClientRequest(url: origin.url("/big")), timeout: .seconds(ProxyHarness.exchangeSeconds))
                statuses.append(response.headers.first(name: "cache-status") ?? "")
                #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == big, "round \(round)")
                if round == 0 {
                    // Stored an hour ago, as far as the file says: old enough to be remembered once checked.
                    let digest = try #require(try proxy.store.allEntries().first?.digest)
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSinceNow: -3600)],
                        ofItemAtPath: "\(folder)/bodies/\(digest.prefix(2))/\(digest)")
                }
            }
            #expect(statuses.dropFirst().allSatisfy { $0.hasPrefix("mirror; hit") }, "\(statuses)")
        }
        await proxy.stop()
        try await origin.shutdown()
    }

    /// Runs `body` with `client`, then shuts the client down whatever happened (a client left
    /// running traps when it is released).
    static func using(_ client: HTTPClient, _ body: (HTTPClient) async throws -> Void) async throws {
        do {
            try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// An HTTPS client whose proxy is `127.0.0.1:proxyPort`, trusting the CA in `file` (or only the system's).
    static func client(proxyPort: Int, trusting file: String?) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file { tls.trustRoots = .file(file) }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
        configuration.connectionPool.retryConnectionEstablishment = false  // a refused certificate is final
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
