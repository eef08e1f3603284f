import Foundation

extension SiteManifest {
    /// Where a mirrored folder keeps its manifest, relative to the folder.
    public static let path = ".mirror/manifest.json"

    /// Why bytes are not a manifest this version can use.
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Decodes a manifest, refusing what is not one and other versions (with what to do).
    public static func decode(_ bytes: [UInt8]) throws(ReadError) -> SiteManifest {
        struct Version: Decodable { var version: Int? }
        guard let version = try? JSONDecoder().decode(Version.self, from: Data(bytes)).version else {
            throw ReadError(description: "\(path) is not a mirror manifest")
        }
        guard version == currentVersion else {
            throw ReadError(
                description:
                    "manifest version \(version); this mirror reads version \(currentVersion) (re-crawl or update mirror)")
        }
        do {
            return try JSONDecoder().decode(SiteManifest.self, from: Data(bytes))
        } catch {
            throw ReadError(description: "\(path) cannot be read: \(error)")
        }
    }
}
