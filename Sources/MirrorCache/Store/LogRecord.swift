/// One record of the cache's entry log (`EntryLog`), as small text written without a JSON
/// encoder on the hot path.
///
/// An entry stored, or its head replaced after a 304:
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
///
/// An entry removed (evicted, dropped as damaged, or removed by a user): `mirror-removed <id> <time>`.
/// Every record before byte `<offset>` of the segment committed to the index: `mirror-committed
/// <offset>` (a group commits while later records are appended). Written by older versions without
/// the offset: every record before the marker itself.
///
/// An entry's time, for ordering records of one id across logs, is its last access: the time
/// it was written, or in a compacted log the index's last use of it.
enum LogRecord: Equatable {
    case entry(CacheEntry)
    case removed(id: String, at: Double)
    /// `through`: the segment's offset before which every record committed; nil in older segments,
    /// where the marker's own offset is meant.
    case committed(through: Int?)

    static let entryMagic = "mirror-entry 1"
    private static let removedMagic = "mirror-removed"
    static let committedMagic = "mirror-committed"

    var bytes: [UInt8] {
        switch self {
        case .entry(let entry):
            var text = "\(Self.entryMagic)\nid \(entry.id)\nmethod \(entry.method)\nurl \(entry.url)\n"
            // Lines by bytes, as `entry(_:)` reads them: a value ending in CR makes one `Character`
            // with the line feed after it.
            for line in entry.varyKey.utf8.split(separator: UInt8(ascii: "\n")) { text += "vary \(Substring(line))\n" }
            text += "status \(entry.status)\ntimes \(entry.requestTime) \(entry.responseTime) \(entry.lastAccess)\n"
            text += "body \(entry.digest) \(entry.size)\n\n"
            text += HeaderCoding.encode(entry.headers)
            return Array(text.utf8)
        case .removed(let id, let time):
            return Array("\(Self.removedMagic) \(id) \(time)".utf8)
        case .committed(let through):
            return Array((through.map { "\(Self.committedMagic) \($0)" } ?? Self.committedMagic).utf8)
        }
    }

    /// The record, or nil when the bytes are not a whole record (e.g. torn by a crash).
    init?(_ bytes: some Collection<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        if text == Self.committedMagic {
            self = .committed(through: nil)
        } else if text.hasPrefix(Self.committedMagic + " ") {
            guard let through = Int(text.dropFirst(Self.committedMagic.count + 1)), through >= 0 else { return nil }
            self = .committed(through: through)
        } else if text.hasPrefix(Self.removedMagic + " ") {
            let words = text.split(separator: " ")
            guard words.count == 3, let time = Double(words[2]) else { return nil }
            self = .removed(id: String(words[1]), at: time)
        } else if let entry = Self.entry(text) {
            self = .entry(entry)
        } else {
            return nil
        }
    }

    /// The entry the record is about, and when it was made: what orders the records of one id.
    var key: (id: String, time: Double)? {
        switch self {
        case .entry(let entry): (entry.id, entry.lastAccess)
        case .removed(let id, let time): (id, time)
        case .committed: nil
        }
    }

    private static func entry(_ text: String) -> CacheEntry? {
        guard let split = text.range(of: "\n\n") else { return nil }
        // By bytes: a value ending in CR would make one `Character` with the line feed after it,
        // and a mark after the space one with it.
        let lines = text[..<split.lowerBound].utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map(Substring.init)
        guard lines.first == Substring(entryMagic) else { return nil }
        var fields: [String: String] = [:]
        var vary: [Substring] = []
        for line in lines.dropFirst() {
            guard let space = line.utf8.firstIndex(of: UInt8(ascii: " ")) else { return nil }
            let key = String(Substring(line.utf8[..<space]))
            let value = Substring(line.utf8[line.utf8.index(after: space)...])
            if key == "vary" { vary.append(value) } else { fields[key] = String(value) }
        }
        let times = fields["times"]?.split(separator: " ").compactMap { Double($0) } ?? []
        let body = fields["body"]?.split(separator: " ") ?? []
        guard let id = fields["id"], let method = fields["method"], let url = fields["url"],
            let status = fields["status"].flatMap(Int.init), times.count == 3, body.count == 2,
            let size = Int(body[1])
        else { return nil }
        return CacheEntry(
            id: id, method: method, url: url, varyKey: vary.joined(separator: "\n"), status: status,
            headers: HeaderCoding.decode(String(text[split.upperBound...])), requestTime: times[0],
            responseTime: times[1], digest: String(body[0]), size: size, lastAccess: times[2])
    }
}
