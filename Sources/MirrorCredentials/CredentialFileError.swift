/// A credentials file (cookies.txt, .netrc) that cannot be read: the file, the line, and what is
/// wrong with it. It never quotes the file's words, any of which may be a secret.
public struct CredentialFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// 1-based; nil when the file as a whole is the problem.
    public let line: Int?
    public let problem: String

    public init(path: String, line: Int?, problem: String) {
        self.path = path
        self.line = line
        self.problem = problem
    }

    public var description: String {
        line.map { "\(path):\($0): \(problem)" } ?? "\(path): \(problem)"
    }
}
