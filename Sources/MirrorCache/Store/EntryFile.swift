/// The metadata file kept beside each entry (`entries/ab/<id>`), from which a lost index
/// is rebuilt. A small text format, written without a JSON encoder on the hot path:
///
///     mirror-entry 1
///     id <id>
///     method GET
///     url <url>
///     vary <field=value>          (one line per Vary field; none when there is no Vary)
///     status 200
///     times <request> <response> <last access>
///     body <sha256> <size>
///
///     <Name: value lines of the response headers>
enum EntryFile {
    static let magic = "mirror-entry 1"

    static func encode(_ entry: CacheEntry) -> [UInt8] {
        var text = "\(magic)\nid \(entry.id)\nmethod \(entry.method)\nurl \(entry.url)\n"
        for line in entry.varyKey.split(separator: "\n") { text += "vary \(line)\n" }
        text += "status \(entry.status)\ntimes \(entry.requestTime) \(entry.responseTime) \(entry.lastAccess)\n"
        text += "body \(entry.digest) \(entry.size)\n\n"
        text += HeaderCoding.encode(entry.headers)
        return Array(text.utf8)
    }

    /// The entry, or nil when the file is not a complete entry file (e.g. torn by a crash).
    static func decode(_ bytes: [UInt8]) -> CacheEntry? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\n\n") else { return nil }
        let lines = text[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(magic) else { return nil }
        var fields: [String: String] = [:]
        var vary: [Substring] = []
        for line in lines.dropFirst() {
            guard let space = line.firstIndex(of: " ") else { return nil }
            let key = String(line[..<space]), value = line[line.index(after: space)...]
            if key == "vary" { vary.append(value) } else { fields[key] = String(value) }
        }
        let times = fields["times"]?.split(separator: " ").compactMap { Double($0) } ?? []
        let body = fields["body"]?.split(separator: " ") ?? []
        guard let id = fields["id"], let method = fields["method"], let url = fields["url"],
              let status = fields["status"].flatMap(Int.init), times.count == 3, body.count == 2,
              let size = Int(body[1]) else { return nil }
        return CacheEntry(
            id: id, method: method, url: url, varyKey: vary.joined(separator: "\n"), status: status,
            headers: HeaderCoding.decode(String(text[split.upperBound...])), requestTime: times[0],
            responseTime: times[1], digest: String(body[0]), size: size, lastAccess: times[2])
    }
}
