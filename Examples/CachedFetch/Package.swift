// swift-tools-version:6.0
// A package that depends on mirror's cache engine alone: an RFC 9111 HTTP cache for
// async-http-client. `swift run cached-fetch URL [CACHE_DIR]` fetches URL twice through it.
import PackageDescription

let package = Package(
    name: "CachedFetch",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "mirror", path: "../..")],
    targets: [
        .executableTarget(
            name: "cached-fetch",
            dependencies: [.product(name: "MirrorCache", package: "mirror"), .product(name: "MirrorHTTP", package: "mirror")],
            path: "Sources/CachedFetch"
        )
    ],
    swiftLanguageModes: [.v6]
)
