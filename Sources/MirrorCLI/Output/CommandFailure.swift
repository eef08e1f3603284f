/// An error the command line reports in one sentence and turns into an exit code.
public struct CommandFailure: Error, CustomStringConvertible {
    public let message: String
    public let status: ExitStatus

    public init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    public var description: String { message }
}
