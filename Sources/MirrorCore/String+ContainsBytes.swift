extension String {
    /// Whether `other` occurs in the string, compared byte for byte. Where Foundation is
    /// imported, `contains` is its `StringProtocol` method, which bridges both strings to
    /// `NSString` on Linux, and the standard library's `firstRange(of:)` on `utf8` runs
    /// unspecialized: both measurable when asked of every response's content type.
    @inlinable public func containsBytes(_ other: String) -> Bool {
        var haystack = self
        var needle = other
        return haystack.withUTF8 { haystack in
            needle.withUTF8 { needle in
                guard let first = needle.first else { return true }
                guard needle.count <= haystack.count else { return false }
                for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                    if UnsafeBufferPointer(rebasing: haystack[start..<start + needle.count]).elementsEqual(needle) { return true }
                }
                return false
            }
        }
    }
}
