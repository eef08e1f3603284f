import Foundation
import NIOHTTP1

@testable import MirrorCache
@testable import MirrorCore
@testable import MirrorCredentials

extension FuzzTargets {
    /// What the cache and the crawl's credentials read of responses and of the user's files:
    /// response heads with their dates and cache directives, Set-Cookie and cookies.txt,
    /// .netrc, WWW-Authenticate and the Punycode of internationalized domains.
    static let cache: [FuzzTarget] = [cachePolicy, cookies, credentials]

    // MARK: Cache policy

    static let cachePolicy = FuzzTarget(
        "cache-policy", dictionary: "http.dict",
        contract: "every decision is made without a trap for every cache; lifetimes and ages are finite, non-negative and fit "
            + "an Int; Vary keys hold no credential; stored heads no hop-by-hop field; every date read formats and reads back"
    ) { input in
        // `[STATUS]` on the first line, then `name: value` lines of the response, a blank line,
        // and those of the request.
        var lines = CacheHeads.lines(input).map { $0.utf8.last == 0x0D ? Substring($0.utf8.dropLast()) : $0[...] }
        var status = 200
        if let first = lines.first, let code = Int(first), (100...599).contains(code) {
            status = code
            lines.removeFirst()
        }
        let blank = lines.firstIndex(where: \.isEmpty) ?? lines.endIndex
        let response = CacheHeads.headers(lines[..<blank])
        let request = CacheHeads.headers(lines[min(blank + 1, lines.endIndex)...])
        let times: [Double] = [1_000_000_000, 1_000_000_000 + Double(input.count % 97)]
        let head = CachedResponseHead(status: status, headers: response, requestTime: times[0], responseTime: times[1])

        for headers in [response, request] {
            let control = CacheControl(headers)
            for seconds in [control.maxAge, control.sharedMaxAge, control.minFresh, control.staleIfError, control.staleWhileRevalidate] {
                if let seconds { require(seconds >= 0, "delta-seconds \(seconds)") }
            }
            if let maxStale = control.maxStale { require(maxStale >= 0, "max-stale \(maxStale)") }
            for (_, value) in headers { CacheHeads.checkDate(value) }
            _ = StructuredDictionary.isValid(
                headers["cdn-cache-control"].joined(separator: ", "), integerKeys: CachePolicy.deltaSecondsDirectives)
        }

        var policies = [CachePolicy(isShared: false), CachePolicy(isShared: true)]
        var targeted = CachePolicy(isShared: true)
        targeted.targetedField = "cdn-cache-control"
        policies.append(targeted)
        for policy in policies {
            _ = policy.canStore(method: .GET, request: request, status: status, response: response)
            require(!policy.canStore(method: .HEAD, request: request, status: status, response: response), "a HEAD stored")
            let lifetime = policy.freshnessLifetime(head)
            require(lifetime.isFinite && lifetime >= 0, "freshness lifetime \(lifetime)")
            for now in [times[1] + 1, times[1] + 86_400 * 400] {
                let age = policy.currentAge(head, now: now)
                CacheHeads.checkAge(age)
                for mode in [CacheMode.standard, .offline, .refresh, .maxAge(60)] {
                    switch policy.reuse(head, request: request, now: now, mode: mode) {
                    case .serve(let age, _), .serveWhileRevalidating(let age): CacheHeads.checkAge(age)
                    case .validate, .unsatisfiable: break
                    }
                }
                _ = policy.canServeStaleOnError(head, request: request, now: now)
            }
            _ = policy.validators(for: head)
            _ = policy.notModified(request, selects: head)
            let updated = policy.updated(head, with: request, requestTime: times[1], responseTime: times[1] + 1)
            require(updated.status == head.status, "a 304 changed the status")
            _ = policy.invalidatedURLs(method: .POST, status: status, url: "https://h.example/a/b", response: response)
        }

        let stored = CachePolicy.storableHeaders(response)
        let named = Set(HTTPList.members(response["connection"]).map { $0.lowercased() })
        for (name, _) in stored {
            let lower = name.lowercased()
            require(
                !CachePolicy.hopByHop.contains(lower) && !CachePolicy.neverStored.contains(lower) && !named.contains(lower),
                "\(name) stored")
        }

        // A Vary key names each field and holds no credential's value; none when Vary has `*` or
        // what is no field name.
        for credentials in [nil, "fingerprint"] as [String?] {
            let key = CachePolicy.varyKey(responseHeaders: response, request: request, credentials: credentials)
            let varied = HTTPList.members(response["vary"])
            require(
                (key == nil) == varied.contains { $0 == "*" || !$0.utf8.allSatisfy(HTTPToken.isTokenByte) },
                "a Vary key exactly when Vary names fields and no *")
            guard let key else { continue }
            let shareable = CachePolicy.shareable(varyKey: key)
            require(!shareable.contains(CachePolicy.privateMark), "a shareable Vary key keeps the credentials' mark")
            for line in shareable.utf8.split(separator: UInt8(ascii: "\n")) {
                require(
                    !CachePolicy.credentialFields.contains { line.starts(with: ($0 + "=#").utf8) },
                    "a shareable key keeps \(String(decoding: line, as: UTF8.self))")
            }
            CacheHeads.checkCredentialLines(of: key, credentials: credentials)
        }

        // Every second of the formattable years writes the same 29 bytes and reads back.
        if input.count >= 8 {
            let seconds = input.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            CacheHeads.checkFormat(seconds)
            CacheHeads.checkFormat(seconds % 400_000_000_000)
        }
    }

    // MARK: Cookies

    static let cookies = FuzzTarget(
        "cookies", dictionary: "http.dict",
        contract: "Set-Cookie and cookies.txt parse or refuse in words without the value; a parsed cookie written back reads "
            + "back the same; the jar never keeps a cookie whose domain the host does not match, nor one for a public suffix"
    ) { input in
        // The request's URL on the first line (a default when it is none); then lines of
        // cookies.txt (five tabs or more) and Set-Cookie values (the others).
        let lines = CacheHeads.lines(input, limit: 32)
        let url = lines.first.flatMap { URLParts($0) } ?? URLParts("https://www.example.co.uk/docs/page.html")!
        let now = 1_700_000_000.0
        let jar = CookieJar(publicSuffixes: CookieChecks.suffixes, now: { now })
        var fileLines: [String] = []
        for line in lines.dropFirst() {
            if line.utf8.count(where: { $0 == 0x09 }) >= 5 {
                fileLines.append(line)
                continue
            }
            let value = line
            let parsed: SetCookie
            do throws(CookieRefusal) {
                parsed = try SetCookieParser.parse(value, now: now)
            } catch {
                CookieChecks.checkRefusal(error.reason, header: value, url: url, now: now)
                continue
            }
            CookieChecks.check(parsed, now: now)
            CookieChecks.checkRoundTrip(parsed, now: now)
            var refusal: String?
            do throws(CookieRefusal) {
                let cookie = try Cookie(parsed, from: url, now: now, publicSuffixes: CookieChecks.suffixes)
                CookieChecks.checkAccepted(cookie, host: url.host)
                CookieChecks.checkFileRoundTrip([cookie], now: now)
            } catch {
                refusal = error.reason
                CookieChecks.checkRefusal(error.reason, header: value, url: url, now: now)
            }
            for change in jar.receive([value], from: url) {
                switch change {
                case .stored(let cookie), .replaced(_, let cookie):
                    require(refusal == nil, "the jar kept a cookie refused: \(refusal ?? "")")
                    CookieChecks.checkAccepted(cookie, host: url.host)
                case .refused(let reason):
                    require(
                        reason == refusal || reason == "cookie \"\(parsed.name)\" came over http and would replace a Secure cookie",
                        "the jar refused \(value.debugDescription) for \(reason)")
                case .deleted, .expiredOnArrival: break
                }
            }
        }
        let file = fileLines.joined(separator: "\n")
        do throws(CredentialFileError) {
            let read = try CookieFile.parse(file, path: "/fuzz/cookies.txt", now: now)
            for cookie in read {
                require(!cookie.isExpired(at: now) && cookie.given, "cookies.txt gave \(cookie)")
                require(!cookie.name.isEmpty && cookie.path.utf8.first == UInt8(ascii: "/"), "cookies.txt gave \(cookie)")
            }
            CookieChecks.checkFileRoundTrip(read, now: now)
            for change in jar.add(read) {
                switch change {
                case .stored(let cookie), .replaced(_, let cookie):
                    require(cookie.hostOnly || !CookieChecks.referenceIsPublicSuffix(cookie.domain), "stored \(cookie), a public suffix")
                default: break
                }
            }
        } catch {
            require(error.path == "/fuzz/cookies.txt", "error names \(error.path)")
            require(
                error.line.map { (1...max(1, fileLines.count)).contains($0) } ?? false, "error on line \(String(describing: error.line))")
            CookieChecks.checkFileProblem(error.problem)
        }
        for cookie in jar.cookies { require(!cookie.isExpired(at: now), "the jar lists \(cookie), expired") }
        _ = jar.cookieHeader(for: url)
    }

    // MARK: Credentials

    static let credentials = FuzzTarget(
        "credentials", dictionary: "http.dict",
        contract: ".netrc reads as a plain reading of its words does, and its errors name the line and never a word of "
            + "the file; WWW-Authenticate challenges written back read back the same; Punycode decodes back to its input"
    ) { input in
        CredentialChecks.checkNetrc(String(decoding: input, as: UTF8.self))
        let lines = CacheHeads.lines(input, limit: 16)
        let challenges = AuthenticationChallenge.parse(lines)
        for challenge in challenges {
            require(!challenge.scheme.isEmpty && challenge.scheme == challenge.scheme.lowercased(), "scheme \(challenge.scheme)")
            require(challenge.scheme.utf8.allSatisfy(HTTPToken.isTokenByte), "scheme \(challenge.scheme) is not a token")
            for name in challenge.parameters.keys {
                require(!name.isEmpty && name.utf8.allSatisfy(HTTPToken.isTokenByte), "parameter \(name) is not a token")
                require(name == name.lowercased(), "parameter \(name) not lower-cased")
            }
        }
        let written = challenges.map(CredentialChecks.field).joined(separator: ", ")
        require(AuthenticationChallenge.parse([written]) == challenges, "challenges written back read otherwise: \(written)")
        // Names as DNS has them: labels of at most 63 bytes (encoding is quadratic in a label's
        // length, and the public suffix list's are short), names of at most 253.
        for line in lines where line.utf8.count <= 253 {
            for label in line.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false) where label.count <= 63 {
                let encoded = Punycode.encode(label.map(\.value))
                require(
                    encoded.utf8.allSatisfy {
                        (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-")
                            || label.contains(Unicode.Scalar($0))
                    },
                    "Punycode \(encoded) holds what is neither a digit nor a basic code point of the label")
                require(CredentialChecks.punycodeDecode(Array(encoded.utf8)) == label.map(\.value), "Punycode \(encoded) decodes otherwise")
            }
            let ascii = Punycode.asciiDomain(line[...])
            require(ascii.utf8.allSatisfy { $0 < 0x80 }, "the ASCII form of a domain is not ASCII: \(ascii)")
            require(
                ascii.split(separator: ".", omittingEmptySubsequences: false).count
                    == line.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false).count,
                "the ASCII form of a domain has other labels")
        }
    }
}

/// The cache policy's checks and the header lists they run on.
private enum CacheHeads {
    static func headers(_ lines: ArraySlice<Substring>) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in lines.prefix(48) {
            // Cut by bytes, as NIO's parser cuts a field line: a value may start with a mark.
            guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { continue }
            // A field name is a token, as NIO's parser takes it (its `add` wants ASCII).
            let name = Substring(line.utf8[..<colon]).trimmingASCIIWhitespace()
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPToken.isTokenByte) else { continue }
            headers.add(name: String(name), value: String(Substring(line.utf8[line.utf8.index(after: colon)...]).trimmingASCIIWhitespace()))
        }
        return headers
    }

    /// What the caching client writes into `Age` (`Int(age.rounded(.down))`) must not trap.
    static func checkAge(_ age: Double) {
        require(age.isFinite && age >= 0 && age < 1e15, "age \(age)")
    }

    /// A date that reads writes back as 29 bytes, reading as the same second once within the
    /// years the form writes.
    static func checkDate(_ value: String) {
        guard let seconds = HTTPDate.parse(value) else { return }
        checkFormat(seconds)
        let again = HTTPDate.parse(HTTPDate.format(seconds))!
        require(HTTPDate.format(again) == HTTPDate.format(seconds), "\(value) formats otherwise once read back")
    }

    static let earliest: Int64 = -62_167_219_200, latest: Int64 = 253_402_300_799

    static func checkFormat(_ seconds: Int64) {
        let text = HTTPDate.format(seconds)
        require(text.utf8.count == 29 && text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "format(\(seconds)) = \(text)")
        require(HTTPDate.parse(text) == min(max(seconds, earliest), latest), "format(\(seconds)) = \(text) reads back otherwise")
    }

    /// A credential field's line of a Vary key is its name alone or its name and a digest; the
    /// credentials' line is their fingerprint.
    static func checkCredentialLines(of key: String, credentials: String?) {
        let hex = Set("0123456789abcdef".utf8)
        // By bytes: a mark after `=` makes one `Character` with it.
        for line in key.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.starts(with: CachePolicy.privateMark.utf8) {
                require(
                    credentials.map { line.elementsEqual((CachePolicy.privateMark + $0).utf8) } ?? false,
                    "a Vary key's line \(String(decoding: line, as: UTF8.self))")
                continue
            }
            let name = line.prefix { $0 != UInt8(ascii: "=") }
            guard CachePolicy.credentialFields.contains(String(decoding: name, as: UTF8.self)) else { continue }
            let rest = line.dropFirst(name.count)
            let digest = rest.dropFirst(2)
            require(
                rest.isEmpty || (rest.starts(with: "=#".utf8) && digest.count == 32 && digest.allSatisfy(hex.contains)),
                "the Vary key holds the \(String(decoding: name, as: UTF8.self)) value")
        }
    }

    /// The input's lines, split at line feeds (a `Character` would keep CR LF whole).
    static func lines(_ input: [UInt8], limit: Int = 64) -> [String] {
        input.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(limit).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// The cookie checks, and a public suffix list small enough to read by hand.
private enum CookieChecks {
    static let listText = """
        com
        uk
        co.uk
        *.ck
        !www.ck
        cn
        公司.cn
        github.io
        """
    static let suffixes = PublicSuffixList(listText)

    /// The list's rules, each as its labels.
    static let rules: [(labels: [Substring], exception: Bool)] = listText.split(separator: "\n").flatMap { line in
        let exception = line.hasPrefix("!")
        let rule = exception ? line.dropFirst() : line[...]
        var forms = [rule]
        if rule.unicodeScalars.contains(where: { !$0.isASCII }) { forms.append(Substring(Punycode.asciiDomain(rule))) }
        return forms.map { (labels: $0.split(separator: ".", omittingEmptySubsequences: false), exception: exception) }
    }

    /// publicsuffix.org's algorithm, read plainly: the prevailing rule is a matching exception,
    /// else the matching rule of most labels, else `*`; the public suffix is the domain's last
    /// labels of that count (one fewer for an exception).
    static func referenceIsPublicSuffix(_ domain: String) -> Bool {
        // Labels by bytes: a mark after a dot makes one `Character` with it, and splitting on
        // `Character`s would not cut there.
        var text = domain.utf8[...]
        if text.last == UInt8(ascii: ".") { text = text.dropLast() }
        guard !text.isEmpty else { return false }
        let labels = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Substring.init)
        func matches(_ rule: [Substring]) -> Bool {
            rule.count <= labels.count
                && zip(rule.reversed(), labels.reversed()).allSatisfy { $0.0 == "*" || $0.0.utf8.elementsEqual($0.1.utf8) }
        }
        if let exception = rules.first(where: { $0.exception && matches($0.labels) }) {
            return labels.count == exception.labels.count - 1
        }
        let longest = rules.filter { !$0.exception && matches($0.labels) }.map(\.labels.count).max() ?? 1
        return labels.count == longest
    }

    static func check(_ cookie: SetCookie, now: Double) {
        require(!cookie.name.isEmpty, "a cookie without a name")
        require(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.nameValueLimit, "a cookie over the limit")
        require(!(cookie.name + cookie.value).utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a control character kept")
        if let expires = cookie.expires { require(expires <= now + SetCookieParser.longestLifetime, "expires after 400 days") }
        if let domain = cookie.domain { require(!domain.isEmpty && domain == domain.lowercased(), "Domain=\(domain)") }
        if let path = cookie.path { require(path.utf8.first == UInt8(ascii: "/"), "Path=\(path)") }
    }

    /// A cookie written as a Set-Cookie value reads back as the same cookie.
    static func checkRoundTrip(_ cookie: SetCookie, now: Double) {
        var value = "\(cookie.name)=\(cookie.value)"
        if let expires = cookie.expires {
            value += expires == -.infinity ? "; Max-Age=0" : "; Expires=" + HTTPDate.format(Int64(expires))
        }
        var expected = cookie
        if let domain = cookie.domain {
            if domain.utf8.count < SetCookieParser.attributeValueLimit { value += "; Domain=." + domain } else { expected.domain = nil }
        }
        if let path = cookie.path { value += "; Path=" + path }
        if cookie.secure { value += "; Secure" }
        if cookie.httpOnly { value += "; HttpOnly" }
        if let sameSite = cookie.sameSite { value += "; SameSite=" + sameSite }
        guard let again = try? SetCookieParser.parse(value, now: now) else { violation("\(cookie) written back is refused") }
        require(again == expected, "\(cookie) written back reads as \(again)")
    }

    /// What the jar takes: a cookie the host matches, and a domain cookie only below a public suffix.
    static func checkAccepted(_ cookie: Cookie, host: String) {
        require(cookie.domainMatches(host), "\(cookie) kept from \(host), which it does not match")
        if !cookie.hostOnly {
            require(!suffixes.isPublicSuffix(cookie.domain), "\(cookie) kept, its domain a public suffix")
            require(!referenceIsPublicSuffix(cookie.domain), "\(cookie) kept, its domain a public suffix by the list's own algorithm")
        }
    }

    /// Cookies written as cookies.txt read back the same (expiry whole seconds, rounded up),
    /// but those the format cannot hold, which are left out.
    static func checkFileRoundTrip(_ cookies: [Cookie], now: Double) {
        let text = CookieFile.text(cookies)
        let read: [Cookie]
        do { read = try CookieFile.parse(text, path: "/fuzz/written.txt", now: now) } catch {
            violation("written cookies.txt refused: \(error)")
        }
        let expected = cookies.filter { cookie in
            fitsCookiesTxt(cookie) && cookie.expires.map { $0.rounded(.up) > now } ?? true
        }
        require(read.count == expected.count, "\(expected.count) cookies written, \(read.count) read back")
        for (cookie, back) in zip(expected, read) {
            require(
                back.name == cookie.name && back.value == cookie.value && back.domain == cookie.domain && back.path == cookie.path
                    && back.hostOnly == cookie.hostOnly && back.secure == cookie.secure && back.httpOnly == cookie.httpOnly,
                "\(cookie) written to cookies.txt reads back as \(back)")
            require(
                back.expires == cookie.expires.map { min(max($0.rounded(.up), 1), 253_402_300_799) },
                "\(cookie)'s expiry read back otherwise")
        }
    }

    /// Whether a cookies.txt line can hold `cookie`: no tab or line feed where it would split or
    /// end the line (a CR only ends one at its end), no domain the reader trims, takes for a
    /// comment or for a domain cookie.
    static func fitsCookiesTxt(_ cookie: Cookie) -> Bool {
        let breaks: Set<UInt8> = [0x09, 0x0A]
        guard !(cookie.name + cookie.domain + cookie.path).utf8.contains(where: breaks.contains),
            !cookie.value.utf8.contains(0x0A), cookie.value.utf8.last != 0x0D
        else { return false }
        let field = Array(((cookie.hostOnly ? "" : ".") + cookie.domain).utf8)
        return !cookie.domain.isEmpty && field.first != 0x20 && field.last != 0x20 && !(cookie.hostOnly && field.first == UInt8(ascii: "."))
            && (cookie.httpOnly || field.first != UInt8(ascii: "#"))
    }

    /// A refusal never quotes the cookie's value: it is the same for the header with the value's
    /// letters and digits changed (same length, same bytes but those).
    static func checkRefusal(_ reason: String, header: String, url: URLParts, now: Double) {
        require(!reason.isEmpty, "a refusal without a reason")
        var bytes = Array(header.utf8)
        let pairEnd = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        guard let equals = bytes[..<pairEnd].firstIndex(of: UInt8(ascii: "=")) else { return }
        for index in (equals + 1)..<pairEnd {
            switch bytes[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "y"), UInt8(ascii: "A")...UInt8(ascii: "Y"): bytes[index] += 1
            case UInt8(ascii: "z"), UInt8(ascii: "Z"): bytes[index] -= 25
            case UInt8(ascii: "0")...UInt8(ascii: "8"): bytes[index] += 1
            case UInt8(ascii: "9"): bytes[index] = UInt8(ascii: "0")
            default: break
            }
        }
        let masked = String(decoding: bytes, as: UTF8.self)
        var again: String?
        do throws(CookieRefusal) {
            _ = try Cookie(try SetCookieParser.parse(masked, now: now), from: url, now: now, publicSuffixes: suffixes)
        } catch {
            again = error.reason
        }
        require(again == reason, "the refusal \(reason.debugDescription) changes with the value: \(again ?? "accepted")")
    }

    /// What cookies.txt errors say: the fixed sentences, never a word of the file.
    static let fileProblems: Set<String> = [
        "has no domain in its first field", "has a second field (include subdomains) that is neither TRUE nor FALSE",
        "has a path (third field) that does not start with /", "has a fourth field (secure) that is neither TRUE nor FALSE",
        "has an expiry (fifth field) that is not a number of seconds since 1970", "has no cookie name in its sixth field",
        "has control characters in the cookie's name or value",
    ]

    static func checkFileProblem(_ problem: String) {
        let fieldCount = problem.hasPrefix("has ") && problem.hasSuffix(" is this a Netscape cookies.txt file?")
        require(fileProblems.contains(problem) || fieldCount, "a cookies.txt error says \(problem.debugDescription)")
    }
}

/// The checks of .netrc, WWW-Authenticate and Punycode.
private enum CredentialChecks {
    static let path = "/fuzz/.netrc"
    static let keywords = ["machine", "default", "login", "password", "account", "macdef"]

    /// Netrc against a plain reading of the tokenizer's words; its errors against the fixed sentences.
    static func checkNetrc(_ text: String) {
        let netrc: Netrc
        do {
            netrc = try Netrc(text, path: path)
        } catch {
            let lines = text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            require(error.path == path, "a .netrc error names \(error.path)")
            require(error.line.map { (1...lines).contains($0) } ?? false, "a .netrc error on line \(String(describing: error.line))")
            require(error.description == "\(path):\(error.line!): \(error.problem)", "a .netrc error reads \(error.description)")
            let known =
                error.problem == "a quoted word has no closing \" on its line"
                || error.problem
                    == "a word that is not a keyword (machine, default, login, password, account, macdef); a value with spaces needs double quotes"
                || keywords.contains { keyword in
                    error.problem == "\"\(keyword)\" has no value after it"
                        || error.problem == "\"\(keyword)\" comes before any \"machine\" or \"default\""
                }
            require(known, "a .netrc error says \(error.problem.debugDescription)")
            return
        }
        // A plain reading: each keyword takes the word after it.
        var tokenizer = NetrcTokenizer(text)
        var entries: [(machine: String?, login: String?, password: String?)] = []
        while let token = try? tokenizer.next() {
            let keyword = token.quoted ? "" : token.text
            switch keyword {
            case "machine": entries.append((try! tokenizer.next()!.text, nil, nil))
            case "default": entries.append((nil, nil, nil))
            case "login": entries[entries.count - 1].login = try! tokenizer.next()!.text
            case "password": entries[entries.count - 1].password = try! tokenizer.next()!.text
            case "account": _ = try! tokenizer.next()
            case "macdef":
                _ = try! tokenizer.next()
                tokenizer.skipMacro()
            default: violation("Netrc read a file with the word \(token.text.debugDescription) out of place")
            }
        }
        require(netrc.description == "netrc for " + entries.map { $0.machine ?? "default" }.joined(separator: ", "), "netrc description")
        var hosts = Set(entries.compactMap(\.machine).prefix(16))
        hosts.insert("nowhere.invalid")
        for host in hosts {
            let lower = host.lowercased()
            let fits = { (entry: (machine: String?, login: String?, password: String?)) in entry.password != nil }
            let entry = entries.first { $0.machine?.lowercased() == lower && fits($0) } ?? entries.first { $0.machine == nil && fits($0) }
            let expected = entry.map { ($0.login ?? "", $0.password!) }
            let found = netrc.credentials(host: host)
            require(found?.login == expected?.0 && found?.password == expected?.1, "credentials for \(host)")
        }
    }

    /// A challenge as a field writes it, every parameter quoted.
    static func field(_ challenge: AuthenticationChallenge) -> String {
        let parameters = challenge.parameters.sorted { $0.key < $1.key }.map { name, value in
            // Scalar by scalar: a mark after a quote makes one `Character` with it.
            var quoted = "\"".unicodeScalars
            for scalar in value.unicodeScalars {
                if scalar == "\"" || scalar == "\\" { quoted.append("\\") }
                quoted.append(scalar)
            }
            return name + "=" + String(quoted) + "\""
        }
        return parameters.isEmpty ? challenge.scheme : challenge.scheme + " " + parameters.joined(separator: ", ")
    }

    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700

    /// RFC 3492 §6.2, as written there; nil for what no encoder writes.
    static func punycodeDecode(_ input: [UInt8]) -> [UInt32]? {
        var n = 128
        var i = 0
        var bias = 72
        let delimiter = input.lastIndex(of: UInt8(ascii: "-"))
        var output: [UInt32] = []
        for byte in input[..<(delimiter ?? 0)] {
            guard byte < 0x80 else { return nil }
            output.append(UInt32(byte))
        }
        var position = delimiter.map { $0 + 1 } ?? 0
        while position < input.count {
            let old = i
            var w = 1
            var k = base
            while true {
                guard position < input.count else { return nil }
                let byte = input[position]
                position += 1
                let digit: Int
                switch byte {
                case 0x61...0x7A: digit = Int(byte) - 0x61
                case 0x30...0x39: digit = Int(byte) - 0x30 + 26
                default: return nil
                }
                let (product, overflow) = digit.multipliedReportingOverflow(by: w)
                guard !overflow, i <= Int.max - product else { return nil }
                i += product
                let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < t { break }
                w *= base - t
                k += base
            }
            let count = output.count + 1
            var delta = old == 0 ? (i - old) / damp : (i - old) / 2
            delta += delta / count
            var kk = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                kk += base
            }
            bias = kk + (base - tMin + 1) * delta / (delta + skew)
            n += i / count
            i %= count
            guard n <= 0x10FFFF else { return nil }
            output.insert(UInt32(n), at: i)
            i += 1
        }
        return output
    }
}
