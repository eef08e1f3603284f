import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ~/.netrc file: logins and passwords by host, as curl, wget and ftp read them. Its
/// description names the machines only, never a password.
public struct Netrc: Sendable, Equatable, CustomStringConvertible {
    /// One `machine` (or `default`, whose machine is nil) and what follows it.
    private struct Entry: Sendable, Equatable {
        let machine: String?
        var login: String?
        var password: String?
        var account: String?
    }

    private var entries: [Entry] = []

    /// Parses the text of a .netrc file read from `path` (named in errors): `machine NAME`,
    /// `default`, then `login`, `password` and `account` with their values; `macdef NAME` and
    /// the lines up to the next blank one are skipped.
    public init(_ text: String, path: String) throws(CredentialFileError) {
        var tokenizer = NetrcTokenizer(text)
        do throws(NetrcTokenizer.Failure) {
            while let token = try tokenizer.next() {
                switch token.quoted ? "" : token.text {
                case "machine":
                    entries.append(Entry(machine: try Self.value(after: token, in: &tokenizer)))
                case "default":
                    entries.append(Entry(machine: nil))
                case "login", "password", "account":
                    let value = try Self.value(after: token, in: &tokenizer)
                    guard !entries.isEmpty else {
                        throw NetrcTokenizer.Failure(
                            line: token.line, problem: "\"\(token.text)\" comes before any \"machine\" or \"default\"")
                    }
                    switch token.text {
                    case "login": entries[entries.count - 1].login = value
                    case "password": entries[entries.count - 1].password = value
                    default: entries[entries.count - 1].account = value
                    }
                case "macdef":
                    _ = try Self.value(after: token, in: &tokenizer)
                    tokenizer.skipMacro()
                default:
                    throw NetrcTokenizer.Failure(
                        line: token.line,
                        problem: "a word that is not a keyword (machine, default, login, "
                            + "password, account, macdef); a value with spaces needs double quotes")
                }
            }
        } catch {
            throw CredentialFileError(path: path, line: error.line, problem: error.problem)
        }
    }

    private static func value(after keyword: NetrcTokenizer.Token, in tokenizer: inout NetrcTokenizer) throws(NetrcTokenizer.Failure)
        -> String
    {
        guard let value = try tokenizer.next() else {
            throw NetrcTokenizer.Failure(line: keyword.line, problem: "\"\(keyword.text)\" has no value after it")
        }
        return value.text
    }

    /// The file at `path`; nil when there is none.
    public static func load(path: String) throws(CredentialFileError) -> Netrc? {
        let bytes: [UInt8]?
        do { bytes = try FileReading.contents(of: path) } catch { throw CredentialFileError(path: path, line: nil, problem: error.message) }
        return try bytes.map { bytes throws(CredentialFileError) in try Netrc(String(decoding: bytes, as: UTF8.self), path: path) }
    }

    /// Where curl looks for the file: `$NETRC`, else `$HOME/.netrc`, else `.netrc` in the home
    /// folder of the user's passwd entry.
    public static func defaultPath(environment: [String: String]) -> String {
        if let path = environment["NETRC"], !path.isEmpty { return path }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.netrc" }
        guard let entry = getpwuid(getuid()), let home = entry.pointee.pw_dir else { return "/.netrc" }
        return String(cString: home) + "/.netrc"
    }

    /// The login and password for `host`: the first `machine` entry of that name (any case) with
    /// a password, and with `login` when one is given (an entry without a login takes any); else
    /// the first `default` entry that fits so. Nil when none does.
    public func credentials(host: String, login: String? = nil) -> (login: String, password: String)? {
        let host = host.lowercased()
        func fits(_ entry: Entry) -> Bool {
            entry.password != nil && (login == nil || entry.login == nil || entry.login == login)
        }
        let entry = entries.first { $0.machine?.lowercased() == host && fits($0) } ?? entries.first { $0.machine == nil && fits($0) }
        guard let entry, let password = entry.password else { return nil }
        return (entry.login ?? login ?? "", password)
    }

    public var description: String {
        "netrc for " + entries.map { $0.machine ?? "default" }.joined(separator: ", ")
    }
}
