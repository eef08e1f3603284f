public import MirrorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Netscape cookies.txt format that curl, wget, yt-dlp and browser export extensions share:
/// one cookie per line, seven tab-separated fields — domain, include subdomains (`TRUE`/`FALSE`),
/// path, secure (`TRUE`/`FALSE`), expiry (seconds since 1970; 0 for a session cookie), name,
/// value. A `#HttpOnly_` prefix on the domain marks an HttpOnly cookie (curl's); other lines
/// starting with `#` are comments.
public enum CookieFile {
    /// The first line curl writes; Python's `MozillaCookieJar` (and so yt-dlp) wants it.
    public static let header = "# Netscape HTTP Cookie File"
    private static let httpOnlyPrefix = "#HttpOnly_"

    /// The cookies of a cookies.txt text read from `path` (named in errors), marked `given`;
    /// those expired at `now` are skipped. CRLF line ends are taken; the value is everything
    /// after the sixth tab, and may be missing (curl writes an empty value so).
    public static func parse(_ text: String, path: String, now: Double = WallClock.now()) throws(CredentialFileError) -> [Cookie] {
        var cookies: [Cookie] = []
        for (number, bytes) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = Substring(bytes)
            if line.utf8.last == UInt8(ascii: "\r") { line = Substring(line.utf8.dropLast()) }
            // Prefixes by bytes: a mark after `#` or `_` makes one `Character` with it.
            let httpOnly = line.utf8.starts(with: httpOnlyPrefix.utf8)
            if httpOnly {
                line = Substring(line.utf8.dropFirst(httpOnlyPrefix.utf8.count))
            } else {
                let start = line.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                if start.isEmpty || start.first == UInt8(ascii: "#") { continue }
            }
            do throws(CredentialFileError.Problem) {
                let cookie = try parseLine(line, httpOnly: httpOnly, now: now)
                if !cookie.isExpired(at: now) { cookies.append(cookie) }
            } catch {
                throw CredentialFileError(path: path, line: number + 1, problem: error.text)
            }
        }
        return cookies
    }

    /// The cookies of the cookies.txt file at `path`, as `parse` reads them.
    public static func load(path: String, now: Double = WallClock.now()) throws(CredentialFileError) -> [Cookie] {
        let bytes: [UInt8]?
        do { bytes = try FileReading.contents(of: path) } catch { throw CredentialFileError(path: path, line: nil, problem: error.message) }
        guard let bytes else { throw CredentialFileError(path: path, line: nil, problem: "there is no such file") }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path, now: now)
    }

    private static func parseLine(_ line: Substring, httpOnly: Bool, now: Double) throws(CredentialFileError.Problem) -> Cookie {
        let fields = line.utf8.split(separator: UInt8(ascii: "\t"), maxSplits: 6, omittingEmptySubsequences: false).map { Substring($0) }
        guard fields.count >= 6 else {
            throw .init(
                "has \(fields.count) tab-separated fields where cookies.txt has 7 (domain, include subdomains, path, "
                    + "secure, expiry, name, value); is this a Netscape cookies.txt file?")
        }
        let domain = fields[0].trimmingASCIIWhitespace()
        guard !domain.isEmpty, domain != "." else { throw .init("has no domain in its first field") }
        let subdomains = try flag(fields[1], field: "second field (include subdomains)")
        guard fields[2].utf8.first == UInt8(ascii: "/") else { throw .init("has a path (third field) that does not start with /") }
        let secure = try flag(fields[3], field: "fourth field (secure)")
        guard let expiry = Double(fields[4].trimmingASCIIWhitespace()), expiry.isFinite else {
            throw .init("has an expiry (fifth field) that is not a number of seconds since 1970")
        }
        guard !fields[5].isEmpty else { throw .init("has no cookie name in its sixth field") }
        let value = fields.count == 7 ? fields[6] : ""
        guard !(fields[5] + value).utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            throw .init("has control characters in the cookie's name or value")
        }
        // Session cookies are written with expiry 0; some exporters write -1.
        return Cookie(
            name: String(fields[5]), value: String(value), domain: String(domain), path: String(fields[2]),
            hostOnly: !subdomains && domain.utf8.first != UInt8(ascii: "."), secure: secure, httpOnly: httpOnly,
            expires: expiry > 0 ? expiry : nil, creation: now, given: true)
    }

    private static func flag(_ text: Substring, field: String) throws(CredentialFileError.Problem) -> Bool {
        switch text.uppercased() {
        case "TRUE": return true
        case "FALSE": return false
        default: throw .init("has a \(field) that is neither TRUE nor FALSE")
        }
    }

    /// The cookies as a cookies.txt file, as curl writes one: domain cookies with a leading dot
    /// and `TRUE`, host-only ones without and `FALSE` (Python's reader insists the two agree).
    /// A cookie the format cannot hold is left out: a server may put a tab in a cookie's name or
    /// path (RFC 6265bis allows it), which would split its line into other fields, so that it
    /// read back as another cookie or made the whole file unreadable.
    public static func text(_ cookies: [Cookie]) -> String {
        var text = header + "\n# https://curl.se/docs/http-cookies.html\n# This file was generated by mirror. Edit at your own risk.\n\n"
        for cookie in cookies {
            let domain = (cookie.httpOnly ? httpOnlyPrefix : "") + (cookie.hostOnly ? "" : ".") + cookie.domain
            let fields = [
                domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE",
                expiryField(cookie.expires), cookie.name, cookie.value,
            ]
            let line = fields.joined(separator: "\t")
            guard readsBack(line, as: cookie) else { continue }
            text += line + "\n"
        }
        return text
    }

    /// Whether `line` reads back as `cookie` (its expiry aside, which is written in whole seconds).
    private static func readsBack(_ line: String, as cookie: Cookie) -> Bool {
        guard let read = try? parse(line, path: "", now: -.infinity), read.count == 1 else { return false }
        let back = read[0]
        return back.name == cookie.name && back.value == cookie.value && back.domain == cookie.domain && back.path == cookie.path
            && back.hostOnly == cookie.hostOnly && back.secure == cookie.secure && back.httpOnly == cookie.httpOnly
    }

    /// Whole seconds, rounded up; 0 for a session cookie. A time before 1970 is written as 1
    /// (long past), since 0 would read back as a session cookie.
    private static func expiryField(_ expires: Double?) -> String {
        guard let expires else { return "0" }
        return String(Int64(min(max(expires.rounded(.up), 1), 253_402_300_799)))
    }

    /// Writes the cookies to `path` as `text` makes them, readable by the owner alone (0600):
    /// into a new file beside it, synced to disk, then renamed over it, so that a crash leaves
    /// the old file or the new one. The error names `path`.
    public static func write(_ cookies: [Cookie], to path: String) throws(FileSystemError) {
        let temporary = "\(path).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor: Int32
        do { descriptor = try PosixFile.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600) } catch {
            throw FileSystemError(path: path, code: error.code)
        }
        var failure: Int32?
        do throws(FileSystemError) { try PosixFile.writeAll(descriptor, Array(text(cookies).utf8), path: temporary) } catch {
            failure = error.code
        }
        if failure == nil && fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0 && failure == nil { failure = errno }
        if failure == nil {
            do { try PosixFile.rename(temporary, to: path) } catch { failure = error.code }
        }
        if let failure {
            try? PosixFile.remove(temporary)
            throw FileSystemError(path: path, code: failure)
        }
    }
}

extension CredentialFileError {
    /// What is wrong with one line, before the file and line number are added.
    struct Problem: Error {
        let text: String

        init(_ text: String) {
            self.text = text
        }
    }
}
