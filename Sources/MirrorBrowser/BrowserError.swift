/// What went wrong with the browser, in words a person can act on.
public enum BrowserError: Error, CustomStringConvertible, Sendable {
    /// No browser at the path given, or none on `PATH`.
    case notFound(String)
    /// The browser could not be started.
    case launchFailed(String)
    /// The browser ended (or crashed) and closed its DevTools pipe.
    case closed(String)
    /// A DevTools command got no answer in time (a page's script in an endless loop, a hung browser).
    case timedOut(String)
    /// The browser refused a DevTools command.
    case protocolError(String)

    public var description: String {
        switch self {
        case .notFound(let message), .launchFailed(let message), .closed(let message): message
        case .timedOut(let method): "the browser did not answer \(method) in time"
        case .protocolError(let message): "the browser refused a command: \(message)"
        }
    }
}
