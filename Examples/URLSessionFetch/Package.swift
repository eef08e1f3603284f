// swift-tools-version:6.0
// A package that gets mirror's cache into URLSession with one line: `swift run --package-path
// Examples/URLSessionFetch URLSessionFetch URL CACHE_DIR [replay]` fetches URL through it.
import PackageDescription

let package = Package(
    name: "URLSessionFetch",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "mirror", path: "../..")],
    targets: [
        .executableTarget(
            name: "URLSessionFetch",
            dependencies: [.product(name: "MirrorURLSession", package: "mirror"), .product(name: "MirrorCache", package: "mirror")],
            path: "Sources/URLSessionFetch"
        )
    ],
    swiftLanguageModes: [.v6]
)
