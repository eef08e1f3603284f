extension String {
    /// Whether `other` occurs in the string, compared byte for byte. Where Foundation is
    /// imported, `contains` is its `StringProtocol` method, which bridges both strings to
    /// `NSString` on Linux: measurable when asked of every response's content type.
    @inlinable public func containsBytes(_ other: String) -> Bool {
        utf8.firstRange(of: other.utf8) != nil
    }
}
