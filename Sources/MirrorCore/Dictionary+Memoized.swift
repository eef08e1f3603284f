extension Dictionary {
    /// The value for `key`: computed by `make` the first time it is asked for, then kept.
    /// Inlinable, so that callers hash and compare their keys specialized (a `[UInt8]` key
    /// hashed through the generic witnesses cost more than the lookups save).
    @inlinable
    public mutating func memoized(_ key: Key, _ make: () throws -> Value) rethrows -> Value {
        if let known = self[key] { return known }
        let value = try make()
        self[key] = value
        return value
    }
}
