import MirrorBundle

extension CommandFailure {
    /// A bundle failure as the command line reports it, with its exit code.
    init(_ error: BundleError) {
        switch error {
        case .notAMirrorFolder: self.init(error.description, status: .usage)
        case .io, .destinationExists: self.init(error.description, status: .io)
        case .notABundle, .unsafeArchive, .corrupt, .digestMismatch, .sizeMismatch, .missingFile, .unlistedFile:
            self.init(error.description, status: .badBundle)
        }
    }
}
