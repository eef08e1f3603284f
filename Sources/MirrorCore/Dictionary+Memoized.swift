extension Dictionary {
    /// The value for `key`: computed by `make` the first time it is asked for, then kept.
    public mutating func memoized(_ key: Key, _ make: () throws -> Value) rethrows -> Value {
        if let known = self[key] { return known }
        let value = try make()
        self[key] = value
        return value
    }
}
