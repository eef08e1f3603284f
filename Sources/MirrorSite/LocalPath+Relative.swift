extension LocalPath {
    /// The relative reference from the file at `from` to the file at `to`, both paths relative to
    /// the output folder (`h/a/b.html` → `h/x.css` gives `../x.css`; a file to itself gives its
    /// own name). Not percent-escaped.
    public static func relativePath(from: String, to: String) -> String {
        let folder = from.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let target = to.split(separator: "/", omittingEmptySubsequences: false)
        var common = 0
        while common < folder.count, common < target.count - 1, folder[folder.startIndex + common] == target[common] {
            common += 1
        }
        let ups = Array(repeating: "..", count: folder.count - common)
        return (ups + target[common...].map(String.init)).joined(separator: "/")
    }
}
