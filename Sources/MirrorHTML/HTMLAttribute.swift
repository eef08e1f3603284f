/// One attribute of a start tag, as libxml2 reports it (entities decoded).
public struct HTMLAttribute: Equatable, Sendable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTMLAttribute {
    /// The value of the first attribute called `name`.
    public subscript(_ name: String) -> String? {
        first { $0.name == name }?.value
    }
}
