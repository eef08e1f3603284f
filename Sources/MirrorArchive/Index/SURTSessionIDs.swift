/// The session ids the Internet Archive's canonicalizer drops from paths and queries
/// (`jsessionid=…`, `PHPSESSID=…`, `sid=…`, `ASPSESSIONID…=…`, `cfid=…&cftoken=…`, ASP.NET path
/// ids), with its own patterns. The patterns run only when a telltale substring is present.
enum SURTSessionIDs {
    nonisolated(unsafe) private static let queryPatterns: [Regex<AnyRegexOutput>] = [
        #"^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$"#,
        #"^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$"#,
        #"^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$"#,
        #"^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$"#,
        #"^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$"#,
    ].map { try! Regex($0).ignoresCase() }

    nonisolated(unsafe) private static let pathPatterns: [Regex<AnyRegexOutput>] = [
        #"^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$"#,
        #"^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$"#,
    ].map { try! Regex($0).ignoresCase() }

    static func strip(query: [UInt8]) -> [UInt8] {
        let lowered = String(decoding: query, as: UTF8.self).lowercased()
        guard lowered.contains("sid") || lowered.contains("sessionid") || lowered.contains("cfid=") else { return query }
        var text = String(decoding: query, as: UTF8.self)
        for pattern in queryPatterns {
            guard let match = try? pattern.wholeMatch(in: text) else { continue }
            let kept = match.output[1].substring.map(String.init) ?? ""
            let rest = match.output[2].substring.map(String.init) ?? ""
            text = kept + rest
        }
        return Array(text.utf8)
    }

    static func strip(path: [UInt8]) -> [UInt8] {
        var text = String(decoding: path, as: UTF8.self)
        guard text.contains(".aspx") else { return path }
        for pattern in pathPatterns {
            guard let match = try? pattern.wholeMatch(in: text) else { continue }
            text = (match.output[1].substring.map(String.init) ?? "") + (match.output[3].substring.map(String.init) ?? "")
        }
        return Array(text.utf8)
    }
}
