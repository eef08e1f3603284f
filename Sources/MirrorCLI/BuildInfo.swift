/// What `mirror --version` says about the build: the version and the commit it was built from.
///
/// A plain `swift build` knows neither: the version is the source's (`MirrorCommand.version`'s
/// literal) and the commit is "unknown". `scripts/package` writes `BuildInfo+Stamp.swift` beside
/// this file (ignored by git) with the version it computed (the release's git tag, else the
/// source's) and the commit (`abc1234`, or `abc1234+dirty`), and builds with
/// `-Xswiftc -DMIRROR_PACKAGE_BUILD`, the only condition under which that file compiles to
/// anything. Its members, declared on `BuildInfo` itself, take precedence over the defaults of
/// the protocol extension below; without the file (a clean clone) the defaults apply.
enum BuildInfo: BuildStamp {
    /// The commit the binary was built from, or "unknown" when no packaging script stamped it.
    static var commit: String { stampedCommit ?? "unknown" }
}

/// The stamp that `scripts/package` may give `BuildInfo` (see `BuildInfo`).
protocol BuildStamp {
    /// The version computed by `scripts/package` (from a `vX.Y.Z` tag, else the source).
    static var stampedVersion: String? { get }
    /// The short hash of the commit built, with `+dirty` when the tree had changes.
    static var stampedCommit: String? { get }
}

extension BuildStamp {
    static var stampedVersion: String? { nil }
    static var stampedCommit: String? { nil }
}
