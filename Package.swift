// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere; strict concurrency comes with it.
let settings: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "mirror",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mirror", targets: ["mirror"]),
        // The cache engine on its own (an RFC 9111 cache for async-http-client); Examples/CachedFetch uses it.
        .library(name: "MirrorCache", targets: ["MirrorCache"]),
        .library(name: "MirrorHTTP", targets: ["MirrorHTTP"]),
        // The cache for URLSession (a URLProtocol); the one product that links FoundationNetworking.
        .library(name: "MirrorURLSession", targets: ["MirrorURLSession"]),
        .library(name: "MirrorTestSupport", targets: ["MirrorTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.0.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        // `swift package generate-documentation --target MirrorCache` (scripts/test builds it); a
        // plugin, nothing of it is linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // System C libraries, found through pkg-config. (zlib's module is CZlibShim: ZIPFoundation
        // brings a module named CZlib of its own on Linux.)
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CZlibShim", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // openat2 for `mirror serve`: a variadic syscall(2) that Swift cannot call itself.
        .target(name: "CBeneath"),
        // glibc's malloc thresholds, fixed by the command line (`MirrorCommand.runMain`), and its
        // malloc_trim, run by `SiteWriter` before the search index is made.
        .target(name: "CHeap"),

        // The one lock type: a pthread mutex, which ThreadSanitizer sees (Synchronization.Mutex's futex it does not).
        .target(name: "MirrorLock", swiftSettings: settings),

        // Thin Swift layers over the C libraries.
        .target(name: "MirrorCore", dependencies: ["MirrorLock"], swiftSettings: settings),
        .target(name: "MirrorCompression", dependencies: ["MirrorLock", "CZlibShim"], swiftSettings: settings),
        .target(name: "MirrorSQLite", dependencies: ["MirrorLock", "CSQLite"], swiftSettings: settings),
        .target(name: "MirrorHTML", dependencies: ["CLibXML2"], swiftSettings: settings),
        .target(
            name: "MirrorSite",
            dependencies: [
                "CHeap", "MirrorLock",
                "MirrorCore", "MirrorHTML", .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ], swiftSettings: settings),

        // The shared HTTP cache engine and its real transport.
        .target(
            name: "MirrorCache",
            dependencies: [
                "MirrorLock",
                "MirrorCore", "MirrorSQLite", "MirrorCompression",
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: settings
        ),
        .target(
            name: "MirrorHTTP",
            dependencies: [
                "MirrorCache",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: settings
        ),

        // The cache for URLSession: a URLProtocol, the URLCache that carries the folder to it, the
        // test recorder, and preloading pages with the crawler.
        .target(
            name: "MirrorURLSession",
            dependencies: [
                "MirrorLock", "MirrorCore", "MirrorCache", "MirrorCrawl", "MirrorHTTP", .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),

        // Credentials of private sites: the cookie jar (RFC 6265bis, public suffixes, cookies.txt),
        // HTTP authentication, ~/.netrc, and which origins each credential may go to.
        .target(
            name: "MirrorCredentials",
            dependencies: ["MirrorLock", "MirrorCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: settings
        ),

        // The crawler: frontier, scope, robots.txt, politeness, journal, report.
        .target(
            name: "MirrorCrawl",
            dependencies: [
                "MirrorLock",
                "MirrorCore", "MirrorCache", "MirrorHTML", "MirrorSQLite", "MirrorSite", "MirrorCompression", "MirrorCredentials",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),

        // `mirror crawl --browser`: headless Chromium over its DevTools pipe, each tab behind an in-process proxy.
        .target(name: "CSpawn"),
        .target(
            name: "MirrorBrowser",
            dependencies: [
                "MirrorLock",
                "CSpawn", "MirrorCore", "MirrorCompression", "MirrorCache", "MirrorCrawl", "MirrorCredentials", "MirrorHTTPServer",
                "MirrorProxy",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),

        // `mirror crawl --shared`: one crawl run by many workers, its state in PostgreSQL.
        .target(
            name: "MirrorShared",
            dependencies: [
                "MirrorLock",
                "MirrorCore", "MirrorCache", "MirrorCrawl", "MirrorCredentials",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),

        // `mirror search`: a full-text index (SQLite FTS5) of a mirrored folder's pages.
        .target(
            name: "MirrorSearch",
            dependencies: [
                "MirrorLock",
                "MirrorCore", "MirrorSQLite", "MirrorHTML", "MirrorSite", "MirrorBundle", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: settings
        ),

        // Offline bundles: pax tar + gzip, safe extraction, reading in place.
        .target(
            name: "MirrorBundle",
            dependencies: [
                "MirrorLock",
                "MirrorCore", "MirrorCompression", "MirrorSite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),

        // An HTTP/1.1 server on SwiftNIO and its CONNECT tunnel, knowing nothing of mirrors:
        // `mirror serve`, `mirror proxy` and the browser's page proxies each give it a responder.
        .target(
            name: "MirrorHTTPServer",
            dependencies: [
                "MirrorCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: settings
        ),

        // `mirror serve`: a mirrored folder or bundle answered over MirrorHTTPServer.
        .target(
            name: "MirrorServe",
            dependencies: [
                "MirrorLock",
                "CBeneath", "MirrorCore", "MirrorHTML", "MirrorSite", "MirrorBundle", "MirrorSearch", "MirrorHTTPServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),

        // `mirror proxy`: a caching forward and reverse proxy on MirrorHTTPServer.
        .target(
            name: "MirrorProxy",
            dependencies: [
                "MirrorLock",
                "MirrorCore", "MirrorCache", "MirrorHTTPServer",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: settings
        ),

        // Web archives: WARC 1.1 records, CDXJ with SURT keys, WACZ packages; export; import of
        // archives and bundles into a cache.
        .target(
            name: "MirrorArchive",
            dependencies: [
                "MirrorCore", "MirrorCompression", "MirrorCache", "MirrorSite", "MirrorHTML", "MirrorBundle",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: settings
        ),

        // The command line: parsing, printing, exit codes.
        .target(
            name: "MirrorCLI",
            dependencies: [
                "CHeap", "MirrorCache", "MirrorHTTP", "MirrorCrawl", "MirrorCredentials", "MirrorSite", "MirrorBundle", "MirrorArchive",
                "MirrorHTML",
                "MirrorCompression", "MirrorHTTPServer", "MirrorServe", "MirrorProxy", "MirrorSQLite", "MirrorBrowser", "MirrorSearch",
                "MirrorShared",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: settings
        ),
        .executableTarget(name: "mirror", dependencies: ["MirrorCLI"], swiftSettings: settings),
        // Measures the cache store (scripts/bench-cache.sh).
        .executableTarget(
            name: "mirror-cache-bench",
            dependencies: ["MirrorCache", "MirrorCore", .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: settings
        ),
        // Measures reading a bundle in place (scripts/bench-archive.sh).
        .executableTarget(name: "mirror-archive-bench", dependencies: ["MirrorBundle"], swiftSettings: settings),
        // Measures the transport alone, then with the cache and the parse (scripts/bench-scale.sh).
        .executableTarget(
            name: "mirror-fetch-bench", dependencies: ["MirrorCache", "MirrorCore", "MirrorHTML", "MirrorHTTP"], swiftSettings: settings),
        // Measures link extraction and rewriting on real pages (scripts/bench-html.sh).
        .executableTarget(
            name: "mirror-html-bench", dependencies: ["CLibXML2", "MirrorCore", "MirrorHTML", "MirrorSite"], swiftSettings: settings),
        // Loads pages in Chromium with --browser's page loop but no proxy: the floor of scripts/bench-browser.sh.
        .executableTarget(
            name: "mirror-browser-bench", dependencies: ["MirrorLock", "MirrorBrowser", "MirrorCache", "MirrorCore", "MirrorCrawl"],
            swiftSettings: settings),
        // Claims and records URLs of a shared crawl without fetching: the frontier's rate (scripts/bench-shared.sh).
        .executableTarget(
            name: "mirror-urlsession-bench",
            dependencies: ["MirrorHTTP", "MirrorURLSession", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            swiftSettings: settings
        ),
        .executableTarget(
            name: "mirror-shared-bench", dependencies: ["MirrorCore", "MirrorShared", "MirrorCrawl"], swiftSettings: settings),
        // Examples/CachedFetch's program, built with the package so scripts/check-library runs it
        // without building the dependencies a second time for the example's own package.
        .executableTarget(
            name: "cached-fetch",
            dependencies: ["MirrorCache", "MirrorHTTP"],
            path: "Examples/CachedFetch/Sources/CachedFetch",
            swiftSettings: settings
        ),
        // Examples/URLSessionFetch's program, built here for the same reason.
        .executableTarget(
            name: "urlsession-fetch",
            dependencies: ["MirrorCache", "MirrorURLSession"],
            path: "Examples/URLSessionFetch/Sources/URLSessionFetch",
            swiftSettings: settings
        ),
        // The parsers of outside input under libFuzzer, each with its contract (scripts/fuzz);
        // built without it, it replays the corpora in Fuzz/corpus (scripts/test). It reaches the
        // parsers' internals with @testable imports: a release build needs -enable-testing.
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "mirror-fuzz",
            dependencies: [
                "CFuzzerDriver", "MirrorArchive", "MirrorBrowser", "MirrorBundle", "MirrorCache", "MirrorCompression", "MirrorCore",
                "MirrorCrawl",
                "MirrorCredentials", "MirrorHTML", "MirrorSearch", "MirrorSite", "MirrorSQLite",
            ],
            swiftSettings: settings
        ),
        // Writes cache entries until killed; the crash tests SIGKILL it at random moments.
        .executableTarget(
            name: "mirror-cache-torture",
            dependencies: ["MirrorCache", "MirrorTestSupport", .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: settings
        ),

        // An in-process origin server for tests.
        .target(
            name: "MirrorTestSupport",
            dependencies: [
                "MirrorLock",
                "CSpawn",
                "MirrorCompression",
                "MirrorCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: settings
        ),
        // A crawl harness for the tests of the modules a crawl feeds (real store, transport and crawler).
        .target(
            name: "MirrorCrawlTesting",
            dependencies: [
                "MirrorCache", "MirrorCrawl", "MirrorCredentials", "MirrorHTTP", "MirrorSearch", "MirrorSite", "MirrorTestSupport",
            ],
            swiftSettings: settings
        ),

        .testTarget(
            name: "MirrorURLSessionTests",
            dependencies: [
                "MirrorLock", "MirrorCore", "MirrorCache", "MirrorURLSession", "MirrorTestSupport", "mirror", "mirror-urlsession-bench",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["MirrorLock", "MirrorCompression", "MirrorSQLite", "MirrorHTML", "MirrorTestSupport"],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorTestSupportTests",
            dependencies: [
                "MirrorLock",
                "CSpawn",
                "MirrorTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorCLITests", dependencies: ["MirrorCLI", "mirror", "MirrorCache", "MirrorTestSupport"], swiftSettings: settings),
        .testTarget(
            name: "MirrorCacheTests",
            dependencies: [
                "MirrorLock", "MirrorCache", "MirrorHTTP", "MirrorTestSupport", "mirror-cache-torture",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorCrawlTests",
            dependencies: [
                "MirrorLock",
                "MirrorCrawl", "MirrorCredentials", "MirrorHTTP", "MirrorSite", "MirrorSQLite", "MirrorCrawlTesting", "MirrorTestSupport",
                "MirrorCompression", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorBrowserTests",
            dependencies: [
                "MirrorLock",
                "MirrorBrowser", "MirrorCore", "MirrorCrawl", "mirror", "MirrorCache", "MirrorHTTP", "MirrorProxy", "MirrorSite",
                "MirrorCrawlTesting", "MirrorTestSupport",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorSearchTests",
            dependencies: [
                "MirrorLock", "MirrorSearch", "MirrorSQLite", "MirrorHTML", "MirrorSite", "MirrorCrawl", "mirror", "MirrorCrawlTesting",
                "MirrorTestSupport", "MirrorCore", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorSharedTests",
            dependencies: [
                "MirrorLock",
                "MirrorShared", "MirrorCrawl", "MirrorCache", "MirrorHTTP", "MirrorSite", "MirrorCredentials", "mirror",
                "MirrorTestSupport",
            ],
            swiftSettings: settings
        ),
        .testTarget(name: "MirrorCoreTests", dependencies: ["MirrorLock", "MirrorCore"], swiftSettings: settings),
        .testTarget(
            name: "MirrorCredentialsTests", dependencies: ["MirrorLock", "MirrorCredentials", "MirrorCore", "MirrorTestSupport"],
            swiftSettings: settings),
        .testTarget(
            name: "MirrorServeTests",
            dependencies: [
                "MirrorServe", "MirrorHTTPServer", "MirrorBundle", "MirrorCrawlTesting", "MirrorTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorHTTPServerTests",
            dependencies: [
                "MirrorLock",
                "MirrorHTTPServer", "MirrorCore", "MirrorTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorProxyTests",
            dependencies: [
                "MirrorLock",
                "MirrorProxy", "MirrorHTTPServer", "MirrorCache", "MirrorHTTP", "MirrorTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorSiteTests",
            dependencies: [
                "MirrorLock",
                "MirrorSite", "MirrorCore", "MirrorTestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: settings),
        .testTarget(name: "MirrorHTMLTests", dependencies: ["MirrorHTML", "MirrorTestSupport"], swiftSettings: settings),
        .testTarget(
            name: "MirrorArchiveTests",
            dependencies: [
                "MirrorArchive", "MirrorCache", "MirrorCrawl", "MirrorSite", "MirrorCrawlTesting", "MirrorTestSupport", "MirrorCompression",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: settings
        ),
        .testTarget(
            name: "MirrorBundleTests",
            dependencies: [
                "MirrorLock",
                "MirrorBundle", "MirrorArchive", "MirrorCrawl", "MirrorHTTP", "MirrorCrawlTesting", "MirrorTestSupport",
                "MirrorCompression",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: settings
        ),
    ],
    swiftLanguageModes: [.v6]
)
