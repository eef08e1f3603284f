/// An error the command line reports in one sentence and turns into an exit code.
public struct CommandFailure: Error, CustomStringConvertible {
    public let message: String
    public let status: ExitStatus

    public init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// The answer of a command whose issue has not landed yet: say so, never fake output.
    static func notAvailable(_ command: String) -> CommandFailure {
        CommandFailure("`mirror \(command)` is not available yet in this version of mirror.", status: .notAvailable)
    }

    public var description: String { message }
}
