import MirrorCore

/// Why a folder cannot be packed, or a bundle cannot be read, unpacked or imported.
/// Each names the file or entry at fault.
public enum BundleError: Error, CustomStringConvertible {
    /// The folder has no readable manifest: it was not written by `mirror crawl`.
    case notAMirrorFolder(path: String, reason: String)
    /// The archive is readable but is not a mirror bundle (no manifest, or one we cannot read).
    case notABundle(String)
    /// A tar-level refusal (unsafe path, link, device, duplicate, limit, corrupt header…).
    case unsafeArchive(TarError)
    /// The gzip stream is truncated or corrupt.
    case corrupt(String)
    /// A file's bytes disagree with the manifest's digest or size.
    case digestMismatch(path: String)
    /// A file entry's header gives another size than the manifest: refused before its data is read.
    case sizeMismatch(path: String, manifestSize: Int, entrySize: Int64)
    /// The manifest lists a file the folder or bundle does not hold.
    case missingFile(path: String)
    /// The bundle holds a file its manifest does not list.
    case unlistedFile(path: String)
    /// Unpacking would replace something that exists.
    case destinationExists(String)
    case io(path: String, message: String)

    public var description: String {
        switch self {
        case .notAMirrorFolder(let path, let reason):
            return "\(path) is not a mirror folder (\(reason)); only folders written by `mirror crawl` can be packed"
        case .notABundle(let reason): return "not a mirror bundle: \(reason)"
        case .unsafeArchive(let error): return "refused: \(error)"
        case .corrupt(let message): return "the bundle is damaged: \(message)"
        case .digestMismatch(let path): return "\(path): its bytes do not match the manifest's digest"
        case .sizeMismatch(let path, let manifestSize, let entrySize):
            return "\(path): the archive says \(entrySize) bytes, the manifest \(manifestSize) bytes"
        case .missingFile(let path): return "\(path): listed in the manifest but missing"
        case .unlistedFile(let path): return "\(path): not listed in the manifest"
        case .destinationExists(let path): return "\(path) already exists and is not an empty folder; choose another or remove it"
        case .io(let path, let message): return "\(path): \(message)"
        }
    }

    /// A failed system call on a file or folder, as `io`.
    static func io(_ error: FileSystemError) -> BundleError {
        .io(path: error.path, message: error.message)
    }
}
