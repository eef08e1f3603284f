import Foundation
import MirrorCore
public import MirrorSite

/// Reads a bundle as it streams from disk — gzip, then tar — checking every entry: the tar
/// layer refuses unsafe paths, links, devices, duplicates and sizes over the limits, and
/// every file must match the manifest's digest. Memory does not grow with the bundle.
///
/// Unpacking writes into a temporary folder beside the destination and renames it at the
/// end, so a refused or damaged bundle leaves nothing behind.
public struct BundleUnpacker {
    public struct Summary: Sendable {
        public var files = 0
        public var bytes = 0
        public var manifest = SiteManifest()
    }

    public let limits: TarLimits

    public init(limits: TarLimits = TarLimits()) {
        self.limits = limits
    }

    /// Checks `bundle` without writing anything.
    @discardableResult
    public func check(_ bundle: String) throws -> Summary {
        try read(bundle, into: nil)
    }

    /// Unpacks `bundle` into `destination`, which must not exist or be an empty folder.
    @discardableResult
    public func unpack(_ bundle: String, to destination: String) throws -> Summary {
        let fileManager = FileManager.default
        var isFolder: ObjCBool = false
        let exists = fileManager.fileExists(atPath: destination, isDirectory: &isFolder)
        if exists && !(isFolder.boolValue && ((try? fileManager.contentsOfDirectory(atPath: destination).isEmpty) ?? false)) {
            throw BundleError.destinationExists(destination)
        }
        let url = URL(fileURLWithPath: destination)
        let parent = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent).unpacking-"
        AbandonedFiles.remove(in: parent, prefix: prefix)
        let temporary = "\(parent)/\(prefix)\(ProcessInfo.processInfo.processIdentifier)"
        try? fileManager.removeItem(atPath: temporary)
        do {
            try fileManager.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        } catch {
            throw BundleError.io(path: temporary, message: error.localizedDescription)
        }
        do {
            let summary = try read(bundle, into: temporary)
            if exists { try? PosixFile.removeFolder(destination) }
            do { try PosixFile.rename(temporary, to: destination) } catch { throw BundleError.io(error) }
            return summary
        } catch {
            try? fileManager.removeItem(atPath: temporary)
            throw error
        }
    }

    private func read(_ bundle: String, into root: String?) throws -> Summary {
        let input = try InputFile(path: bundle, missing: .io(path: bundle, message: "no such file"))
        return try BundleScan.run(input, limits: limits, root: root, indexing: false).summary
    }
}
