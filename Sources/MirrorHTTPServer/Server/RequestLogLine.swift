import Foundation
import MirrorCore
public import NIOCore
public import NIOHTTP1

/// What the log says about one answered request.
public struct RequestLogLine: Sendable, CustomStringConvertible {
    public var client: SocketAddress?
    public var method: HTTPMethod
    public var target: String
    public var status: Int
    /// Body bytes sent (for a stream, those handed to the connection before it ended).
    public var bytes: Int
    public var duration: Duration
    /// The responder's note (`ServerResponse.logNote`), such as a cache status.
    public var note: String?

    public var description: String {
        let milliseconds = duration.seconds * 1000
        let client = client?.ipAddress ?? "-"
        let note = note.map { " \($0)" } ?? ""
        // A hostile target must not put escape sequences on the user's terminal.
        let target = String(target.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        return "\(client) \(method.rawValue) \(target) \(status) \(bytes) \(String(format: "%.1f", milliseconds))ms\(note)"
    }
}
