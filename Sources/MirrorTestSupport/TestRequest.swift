public import Foundation
public import NIOHTTP1

/// One request as the test origin received it, for tests to assert on.
public struct TestRequest: Sendable {
    public let method: HTTPMethod
    /// The request target as sent: path plus query.
    public let uri: String
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// When its head arrived (stamped on the event loop, before any task answers it).
    public let time: Date

    /// The path without the query.
    public var path: String { String(uri.prefix { $0 != "?" }) }

    /// The query string without `?`, or nil when there is none.
    public var query: String? {
        uri.firstIndex(of: "?").map { String(uri[uri.index(after: $0)...]) }
    }

    /// The Host header.
    public var host: String? { headers.first(name: "host") }

    /// The first value of a header, case-insensitively.
    public func header(_ name: String) -> String? { headers.first(name: name) }
}
