/// pax extended header records: "LEN key=value\n", where LEN counts the whole record, itself included.
enum TarPax {
    /// One record; the key is ASCII, the value any bytes.
    static func record(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let body = key.utf8.count + value.count + 3  // " ", "=", "\n"
        var length = body + 1
        while length != body + String(length).utf8.count {
            length = body + String(length).utf8.count
        }
        return Array("\(length) \(key)=".utf8) + value + [0x0A]
    }

    /// Splits a header body into records.
    /// - Throws: a description of the first malformed record.
    static func parse(_ data: [UInt8]) throws(ParseError) -> [(key: String, value: ArraySlice<UInt8>)] {
        var records: [(key: String, value: ArraySlice<UInt8>)] = []
        var start = 0
        while start < data.count {
            var index = start
            var length = 0
            while index < data.count, (0x30...0x39).contains(data[index]) {
                length = length * 10 + Int(data[index] - 0x30)
                guard length <= data.count else { throw ParseError("a record length runs past the end of the header") }
                index += 1
            }
            guard index > start, index < data.count, data[index] == 0x20 else {
                throw ParseError("a record does not start with a length and a space")
            }
            let end = start + length
            guard end > index + 1, end <= data.count else {
                throw ParseError("a record length runs past the end of the header")
            }
            guard data[end - 1] == 0x0A else { throw ParseError("a record does not end with a newline") }
            let body = data[(index + 1)..<(end - 1)]
            guard let equals = body.firstIndex(of: 0x3D), equals > body.startIndex,
                let key = String(validating: body[..<equals], as: UTF8.self)
            else { throw ParseError("a record is not \"key=value\"") }
            records.append((key, body[(equals + 1)...]))
            start = end
        }
        return records
    }

    /// Parses a decimal `size` value.
    static func size(_ value: ArraySlice<UInt8>) -> Int64? {
        guard !value.isEmpty, value.count <= 18, value.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return value.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    struct ParseError: Error {
        var problem: String
        init(_ problem: String) { self.problem = problem }
    }
}
