/// A relative path inside the output folder, as its components (`host/folder/file`).
///
/// Every component is non-empty, never `.` or `..`, and contains no `/`, `\` or NUL,
/// so the path cannot leave the folder it is resolved under.
public struct LocalPath: Sendable, Hashable, CustomStringConvertible {
    public let components: [String]

    public init(components: [String]) {
        self.components = components
    }

    /// The components joined with `/`.
    public var string: String { components.joined(separator: "/") }

    public var description: String { string }
}
