import ArgumentParser
import Foundation
import MirrorCore
import MirrorCrawl
import MirrorCredentials

/// `--cookies`, `--save-cookies`, `--user` and `--password-file`: the ways into a private site.
/// Passwords are never taken from the command line, where `ps` shows them.
struct CredentialOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Load cookies from this cookies.txt (Netscape format, as browsers' export extensions, curl and wget write it).",
            valueName: "FILE"))
    var cookies: String?
    @Option(help: ArgumentHelp("Write the crawl's cookies here when it ends (cookies.txt, readable by you only).", valueName: "FILE"))
    var saveCookies: String?
    @Option(help: ArgumentHelp("Answer HTTP Basic and Digest challenges of the seeds' origins as this user.", valueName: "NAME"))
    var user: String?
    @Option(
        help: ArgumentHelp(
            "The --user's password: the first line of this file (else $MIRROR_PASSWORD, else ~/.netrc).",
            valueName: "FILE"))
    var passwordFile: String?

    /// The crawl's credentials: `configuration`'s headers, the login and the cookies file, with a
    /// jar that checks domain cookies against the system's public suffix list.
    func credentials(
        for configuration: CrawlConfiguration,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> CrawlCredentials {
        if passwordFile != nil && user == nil { throw CommandFailure("--password-file needs --user NAME", status: .usage) }
        let jar = CookieJar(publicSuffixes: PublicSuffixList.system())
        if let cookies {
            do {
                jar.add(try CookieFile.load(path: cookies))
            } catch {
                throw CommandFailure("--cookies: \(error)", status: .usage)
            }
        }
        return CrawlCredentials(configuration: configuration, login: try login(for: configuration, environment: environment), jar: jar)
    }

    private func login(for configuration: CrawlConfiguration, environment: [String: String]) throws -> Login? {
        guard let user else { return nil }
        var sources: [Login.PasswordSource] = []
        if let passwordFile { sources.append(.file(passwordFile)) }
        if let password = environment["MIRROR_PASSWORD"] { sources.append(.environment(password)) }
        do {
            if let netrc = try Netrc.load(path: Netrc.defaultPath(environment: environment)) {
                sources.append(.netrc(netrc, hosts: configuration.seeds.compactMap { URLParts($0)?.host }))
            }
            return try Login.resolve(user: user, from: sources)
        } catch {
            throw CommandFailure("--user: \(error)", status: .usage)
        }
    }

    /// Writes the jar to `--save-cookies`, when given.
    func save(_ credentials: CrawlCredentials) throws {
        guard let saveCookies else { return }
        do {
            try CookieFile.write(credentials.jar.cookies, to: saveCookies)
        } catch {
            throw CommandFailure("cannot write --save-cookies \(saveCookies): \(error)", status: .io)
        }
    }
}
