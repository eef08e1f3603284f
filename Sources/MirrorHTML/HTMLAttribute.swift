internal import CLibXML2

/// One attribute of a start tag, as libxml2 reports it (entities decoded).
public struct HTMLAttribute: Equatable, Sendable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Reads libxml2's NULL-terminated name/value array.
    static func list(_ pairs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> [HTMLAttribute] {
        guard let pairs else { return [] }
        var result: [HTMLAttribute] = []
        var index = 0
        while let name = pairs[index] {
            let value = pairs[index + 1].map { String(cString: $0) } ?? ""
            // libxml2's HTML parser has already lower-cased the name.
            result.append(HTMLAttribute(name: String(cString: name), value: value))
            index += 2
        }
        return result
    }
}

extension Array where Element == HTMLAttribute {
    /// The value of the first attribute called `name`.
    public subscript(_ name: String) -> String? {
        first { $0.name == name }?.value
    }
}
