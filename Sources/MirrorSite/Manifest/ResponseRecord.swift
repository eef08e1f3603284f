public import NIOHTTP1

/// What a cache needs to hold a saved response again, besides its status and body: the
/// headers as stored, when it was requested and received (its age), and its Vary key.
/// The manifest keeps one per URL, so a bundle can reload the exact original responses.
public struct ResponseRecord: Sendable, Codable, Equatable {
    /// The header fields packed in one array (`HeaderFields`): a manifest in memory (`serve`,
    /// `pack`) holds a record per URL, and `[[String]]` would take an array and two strings per
    /// field.
    private var fields: [UInt8]
    public var requestTime: Double
    public var responseTime: Double
    /// The request's values of the fields named by Vary (`CachePolicy.varyKey`).
    public var varyKey: String

    public init(headers: HTTPHeaders, requestTime: Double, responseTime: Double, varyKey: String) {
        fields = HeaderFields.pack(pairs: headers)
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyKey = varyKey
    }

    /// A record whose header fields are `packedFields` (`HeaderFields`' form, as a store of
    /// records kept them); nil when they are not in that form.
    public init?(packedFields: [UInt8], requestTime: Double, responseTime: Double, varyKey: String) {
        guard HeaderFields.isPacked(packedFields) else { return nil }
        fields = packedFields
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyKey = varyKey
    }

    /// The header fields in `HeaderFields`' form: what a store of records (the crawl's journal)
    /// keeps, so that reading a record back packs nothing again.
    public var packedFields: [UInt8] { fields }

    /// Header fields in order, each `[name, value]` (as the manifest writes them).
    public var headers: [[String]] {
        get { HeaderFields.unpack(fields) }
        set { fields = HeaderFields.pack(newValue) }
    }

    /// The value of the first field named `name` (case ignored), as `HTTPHeaders.first(name:)`.
    public func firstValue(named name: String) -> String? { HeaderFields.firstValue(named: name, in: fields) }

    /// Whether `firstValue(named: name)` is `value`, byte for byte, without making it.
    func firstValue(named name: String, is value: String?) -> Bool { HeaderFields.firstValue(named: name, in: fields, is: value) }

    public var httpHeaders: HTTPHeaders {
        HTTPHeaders(headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
    }

    private enum CodingKeys: String, CodingKey {
        case headers, requestTime, responseTime, varyKey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fields = HeaderFields.pack(try container.decode([[String]].self, forKey: .headers))
        requestTime = try container.decode(Double.self, forKey: .requestTime)
        responseTime = try container.decode(Double.self, forKey: .responseTime)
        varyKey = try container.decode(String.self, forKey: .varyKey)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(headers, forKey: .headers)
        try container.encode(requestTime, forKey: .requestTime)
        try container.encode(responseTime, forKey: .responseTime)
        try container.encode(varyKey, forKey: .varyKey)
    }
}
