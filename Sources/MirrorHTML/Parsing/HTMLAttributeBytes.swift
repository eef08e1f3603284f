/// One attribute of a start tag as libxml2 reports it: the name lower-cased, the value with
/// character references decoded (empty when the attribute has none). The bytes belong to
/// libxml2 and are valid only during the callback that reports them.
struct HTMLAttributeBytes {
    let name: UnsafeBufferPointer<UInt8>
    let value: UnsafeBufferPointer<UInt8>
}

extension UnsafeBufferPointer<HTMLAttributeBytes> {
    /// The value of the first attribute called `name`.
    subscript(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        first { $0.name.spells(name) }?.value
    }
}
