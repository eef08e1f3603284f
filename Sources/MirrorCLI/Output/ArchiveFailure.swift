import MirrorArchive

extension CommandFailure {
    /// A web archive failure as the command line reports it, with its exit code.
    init(_ error: ArchiveError) {
        switch error {
        case .notAMirrorFolder: self.init(error.description, status: .usage)
        case .io: self.init(error.description, status: .io)
        case .notAnArchive, .corrupt, .truncated: self.init(error.description, status: .badBundle)
        case .damagedBody: self.init(error.description, status: .cacheDamaged)
        }
    }
}
