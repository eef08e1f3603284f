import PostgresNIO

/// A statement a worker sends for every URL, which each connection prepares once: PostgreSQL
/// parses and plans it the first time, and binds `values` (`$1`, `$2`… in order) afterwards.
protocol SharedStatement: PostgresPreparedStatement where Row: Sendable {
    var values: [any PostgresEncodable & Sendable] { get }
}

extension SharedStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value) }
        return bindings
    }
}

extension SharedStatement where Row == () {
    func decodeRow(_ row: PostgresRow) throws {}
}
