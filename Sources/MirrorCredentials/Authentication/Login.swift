import MirrorCore

/// A user name and password for HTTP authentication (`--user`). The password is read from a
/// file, the environment or `~/.netrc`, never from the command line, where `ps` shows it.
public struct Login: Sendable, Equatable {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Where a password may come from, first found first used.
    public enum PasswordSource: Sendable, Equatable {
        /// `--password-file`: its first line.
        case file(String)
        /// `$MIRROR_PASSWORD`.
        case environment(String)
        /// The entry of `~/.netrc` (or `$NETRC`) for one of the seeds' hosts and this user.
        case netrc(Netrc, hosts: [String])
    }

    /// The login of `user` with the password of the first source that has one.
    public static func resolve(user: String, from sources: [PasswordSource]) throws -> Login {
        for source in sources {
            switch source {
            case .file(let path):
                let bytes: [UInt8]
                do {
                    guard let contents = try FileReading.contents(of: path) else {
                        throw LoginError.unreadablePasswordFile(path: path, reason: "no such file")
                    }
                    bytes = contents
                } catch let error as FileSystemError {
                    throw LoginError.unreadablePasswordFile(path: path, reason: "\(error)")
                }
                var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                let password = String(decoding: line, as: UTF8.self)
                guard !password.isEmpty else { throw LoginError.emptyPasswordFile(path: path) }
                return Login(user: user, password: password)
            case .environment(let value):
                if !value.isEmpty { return Login(user: user, password: value) }
            case .netrc(let netrc, let hosts):
                for host in hosts {
                    if let found = netrc.credentials(host: host, login: user) { return Login(user: user, password: found.password) }
                }
            }
        }
        throw LoginError.noPassword(user: user)
    }
}

/// Why `--user` could not be used; no message holds a password.
public enum LoginError: Error, CustomStringConvertible, Equatable {
    case noPassword(user: String)
    case unreadablePasswordFile(path: String, reason: String)
    case emptyPasswordFile(path: String)

    public var description: String {
        switch self {
        case .noPassword(let user):
            "no password for \(user): give it with --password-file FILE, $MIRROR_PASSWORD or a ~/.netrc entry for the seed's host"
        case .unreadablePasswordFile(let path, let reason): "cannot read the password file \(path): \(reason)"
        case .emptyPasswordFile(let path): "the password file \(path) is empty (its first line is the password)"
        }
    }
}
