/// A relative path inside the output folder, as its components (`host/folder/file`).
///
/// Every component is non-empty, never `.` or `..`, and contains no `/`, `\` or NUL,
/// so the path cannot leave the folder it is resolved under.
public struct LocalPath: Sendable, Hashable, CustomStringConvertible {
    public let components: [String]
    /// The components joined with `/`.
    public let string: String

    public init(components: [String]) {
        self.components = components
        string = components.joined(separator: "/")
    }

    /// A path whose joined form is at hand: `PathRegistry` hands out the very string it keeps,
    /// so that a crawl holds each path once, not once more in every manifest entry.
    init(string: String, components: [String]) {
        self.components = components
        self.string = string
    }

    public var description: String { string }
}
