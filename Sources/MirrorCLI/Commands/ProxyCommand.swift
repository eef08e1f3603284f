public import ArgumentParser
import Foundation
import MirrorCache
import MirrorCore
import MirrorHTTP
import MirrorHTTPServer
import MirrorProxy

/// `mirror proxy`: a caching HTTP proxy that records while online and replays offline.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Run a caching HTTP proxy (record, replay or passthrough).",
        discussion: """
            Without --upstream it is a forward proxy (http_proxy=http://127.0.0.1:3128); with \
            --upstream it is a reverse proxy for that origin. record answers as an RFC 9111 \
            shared cache and stores what may be stored; replay answers from the cache alone and \
            never touches the network (a miss gets --on-miss); passthrough caches nothing. Every \
            response carries Cache-Status (RFC 9211). With --mitm, HTTPS through CONNECT is \
            decrypted with certificates from a local CA made in the cache folder (clients must \
            trust it: `mirror proxy ca` prints its path) and cached like HTTP; without, it is \
            tunnelled unread.

            Examples:
              mirror proxy --port 3128 --mode record
              mirror proxy --port 3128 --mode replay --on-miss 404
              mirror proxy --upstream https://docs.example.org --port 8080
              mirror proxy --ignore-param 'utm_*' --ignore-param _ --max-age 1d
              mirror proxy --mitm --port 3128
              mirror proxy ca
            """,
        subcommands: [CertificateAuthority.self]
    )

    @Option(help: "The address to listen on.") var host: String = "127.0.0.1"
    @Option(help: "The port to listen on (0 picks a free one).") var port: Int = 3128
    @OptionGroup var cacheOptions: CacheOptions
    @OptionGroup var tlsOptions: TLSOptions
    @Option(help: "record, replay or passthrough.") var mode: RecordingMode = .record
    @Option(help: ArgumentHelp("Act as a reverse proxy for this origin.", valueName: "URL")) var upstream: String?
    @Option(help: ArgumentHelp("The status of a replay miss: 504 or 404.", valueName: "STATUS")) var onMiss: Int = 504
    @Option(
        help: ArgumentHelp(
            "Use a cached response younger than this without asking the origin (seconds, or 10m, 1d).",
            valueName: "DURATION"))
    var maxAge: TimeSpan?
    @Flag(help: "Revalidate every cached response with the origin.") var refresh = false
    @Option(help: ArgumentHelp("Only cache this host (host, host:port or *.domain); others pass uncached.", valueName: "PATTERN"))
    var allowHost: [String] = []
    @Option(help: ArgumentHelp("Only cache URLs matching this regular expression; others pass uncached.", valueName: "REGEX"))
    var cacheURL: [String] = []
    @Option(help: ArgumentHelp("Only cache requests whose User-Agent ends with this.", valueName: "TEXT"))
    var userAgentSuffix: [String] = []
    @Option(
        help: ArgumentHelp(
            "Leave this query parameter out of the cache key (* matches any characters: utm_*).",
            valueName: "NAME"))
    var ignoreParam: [String] = []
    @Option(help: ArgumentHelp("A request's time limit (seconds, or 30s, 2m…).", valueName: "DURATION"))
    var timeout = TimeSpan(seconds: 30)
    @Flag(help: "Decrypt HTTPS (CONNECT) with certificates from the local CA and cache it (see `mirror proxy ca`).")
    var mitm = false
    @Flag(help: "Do not log each request.") var quiet = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard onMiss == 504 || onMiss == 404 else { throw ValidationError("--on-miss must be 504 or 404") }
        if let upstream, URLParts(upstream) == nil {
            throw ValidationError("--upstream must be an absolute http(s) URL: \(upstream)")
        }
        if mitm && upstream != nil { throw ValidationError("--mitm is for a forward proxy: drop --upstream or --mitm") }
        if refresh && maxAge != nil { throw ValidationError("--refresh and --max-age contradict each other: choose one") }
        if mode != .record && (refresh || maxAge != nil) {
            throw ValidationError("--refresh and --max-age apply to --mode record only")
        }
    }

    func run() async throws {
        DescriptorLimit.raise()
        let configuration = try proxyConfiguration()
        // Small bodies read again from the page cache are not hashed again once checked, so an
        // 8 MiB memory tier serves about as fast as 32 MiB (measured), with 30 MB less memory.
        let store = try CacheCommand.open(cacheOptions.directory(), memoryCapacity: 8 << 20)
        let transport = AsyncHTTPClientTransport(security: try tlsOptions.security())
        let responder = ProxyResponder(configuration: configuration, store: store, transport: transport)
        var log: (@Sendable (RequestLogLine) -> Void)?
        if !quiet { log = { @Sendable line in Output.line(line.description) } }
        let server: HTTPServer
        do {
            var serverConfiguration = ServerConfiguration(host: host, port: port)
            configuration.configureTunnels(&serverConfiguration)
            server = try await HTTPServer.start(serverConfiguration, responder: responder, log: log)
        } catch {
            try? await transport.shutdown()
            throw CommandFailure("cannot listen on \(host):\(port): \(error); pick another --port or --host", status: .io)
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        let role = upstream.map { "reverse proxy for \($0)" } ?? "forward proxy"
        Output.line("proxying (\(mode.rawValue), \(role)) at http://\(shown):\(server.port)/ (Ctrl-C to stop)")
        let interrupt = InterruptHandler(notice: "stopping") { Task { await server.shutdown() } }
        await server.wait()
        interrupt.cancel()
        try? await transport.shutdown()
    }

    func proxyConfiguration() throws -> ProxyConfiguration {
        var configuration = ProxyConfiguration(mode: mode, upstream: upstream)
        if mitm { configuration.interception = try CertificateAuthority.load(cacheOptions.directory()) }
        configuration.missStatus = onMiss
        configuration.cache.mode = refresh ? .refresh : maxAge.map { .maxAge($0.seconds) } ?? .standard
        configuration.cache.timeout = timeout.duration
        configuration.cache.admission = AdmissionRules(
            hosts: try CrawlCommand.hostPatterns(allowHost),
            urlPatterns: try cacheURL.map(CrawlCommand.pattern),
            userAgentSuffixes: userAgentSuffix,
            ignoredParameters: ignoreParam)
        return configuration
    }
}

/// `--mode record|replay|passthrough`.
extension RecordingMode: ExpressibleByArgument {}

extension ProxyCommand {
    /// `mirror proxy ca`: the local CA of `--mitm`, created if need be: its certificate's path and SPKI hash.
    struct CertificateAuthority: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ca",
            abstract: "Print the path of the --mitm CA certificate and its SPKI SHA-256 (creating it if need be).",
            discussion: """
                Trust the certificate in the client (a browser's or the system's store, curl \
                --cacert), or give Chromium the hash: --ignore-certificate-errors-spki-list=HASH.

                Examples:
                  mirror proxy ca
                  mirror proxy ca --cache ./cache
                """)

        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            let authority = try Self.load(cacheOptions.directory())
            Output.line("certificate: \(authority.certificatePath)")
            Output.line("spki-sha256: \(authority.spkiSHA256)")
        }

        static func load(_ cacheFolder: String) throws -> InterceptionAuthority {
            do {
                return try InterceptionAuthority(cacheFolder: cacheFolder)
            } catch {
                throw CommandFailure("cannot load or create the --mitm CA in \(cacheFolder)/mitm: \(ErrorText.plain(error))", status: .io)
            }
        }
    }
}
