extension LocalPath {
    /// The relative reference from the file at `from` to the file at `to`, both paths relative to
    /// the output folder (`h/a/b.html` → `h/x.css` gives `../x.css`; a file to itself gives its
    /// own name). Not percent-escaped. Folders compare by their bytes: two spellings of `é` are
    /// two folders on disk.
    public static func relativePath(from: String, to: String) -> String {
        let from = Array(from.utf8)
        let to = Array(to.utf8)
        // The bytes of the folders both paths are in, up to and with the last shared `/`.
        var shared = 0
        var index = 0
        while index < from.count, index < to.count, from[index] == to[index] {
            if from[index] == UInt8(ascii: "/") { shared = index + 1 }
            index += 1
        }
        let ups = from[shared...].reduce(0) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
        var path: [UInt8] = []
        path.reserveCapacity(ups * 3 + to.count - shared)
        for _ in 0..<ups { path += "../".utf8 }
        path += to[shared...]
        return String(decoding: path, as: UTF8.self)
    }
}
