/// A URL query's `&`-separated parameters, read by bytes as URL parsers read them: a mark after
/// `&` or `=` makes one `Character` with it, and a split on `Character`s would not cut there
/// (`utm_a=x\u{600}&id=1` would be one parameter, `utm_a`).
public enum QueryParameters {
    /// The parameters of `query` in order, empty ones included.
    public static func split(_ query: String) -> [Substring] {
        query.parts(separatedBy: UInt8(ascii: "&"))
    }

    /// A parameter's name: what comes before its first `=`.
    public static func name(of parameter: Substring) -> Substring {
        Substring(parameter.utf8.prefix { $0 != UInt8(ascii: "=") })
    }
}
