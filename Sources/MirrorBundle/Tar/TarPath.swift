/// Checks and normalizes an entry path, for reading and for writing alike.
enum TarPath {
    /// Longest path accepted, in bytes, after normalization.
    static let maxLength = 4096

    /// The normalized path: leading "./" removed, a directory's trailing "/" removed.
    /// - Returns: nil for the archive root ("." or "./"), which readers skip.
    /// - Throws: `TarError.unsafePath` naming the first problem found.
    static func normalize(_ raw: [UInt8], isDirectory: Bool) throws(TarError) -> String? {
        func refuse(_ problem: TarError.PathProblem) -> TarError {
            .unsafePath(path: String(decoding: raw, as: UTF8.self), problem: problem)
        }
        guard !raw.contains(0) else { throw refuse(.nulByte) }
        var path = raw[...]
        while path.starts(with: [0x2E, 0x2F]) { path = path.dropFirst(2) }  // "./"
        if path.isEmpty || path.elementsEqual([0x2E]) {
            guard isDirectory, !raw.isEmpty else { throw refuse(.empty) }
            return nil
        }
        if isDirectory, path.last == 0x2F { path = path.dropLast() }
        guard !path.isEmpty else { throw refuse(.empty) }
        guard path.count <= maxLength else { throw refuse(.tooLong(limit: maxLength)) }
        guard path.first != 0x2F else { throw refuse(.absolute) }
        guard !path.contains(0x5C) else { throw refuse(.backslash) }
        let components = path.split(separator: 0x2F, omittingEmptySubsequences: false)
        if let first = components.first, first.count >= 2, first[first.startIndex + 1] == 0x3A,
            (0x61...0x7A).contains(first[first.startIndex] | 0x20)
        {
            throw refuse(.driveLetter)
        }
        for component in components {
            if component.isEmpty { throw refuse(.emptyComponent) }
            if component.elementsEqual([0x2E, 0x2E]) { throw refuse(.parentComponent) }
            if component.elementsEqual([0x2E]) { throw refuse(.currentComponent) }
        }
        guard let text = String(validating: path, as: UTF8.self) else { throw refuse(.notUTF8) }
        return text
    }
}
