import Foundation

/// Sorts lines of text by their bytes with bounded memory: lines gather in memory up to
/// `memoryLimit` bytes, then are sorted and written to a run file in `folder`; the runs are
/// merged at the end. (A CDXJ index has one line per record, so a large cache's index would not
/// fit in memory.)
final class SortedLines {
    private let folder: String
    private let memoryLimit: Int
    private var lines: [[UInt8]] = []
    private var bytes = 0
    private var runs: [String] = []

    init(folder: String, memoryLimit: Int = 32 << 20) {
        self.folder = folder
        self.memoryLimit = memoryLimit
    }

    func add(_ line: String) throws {
        lines.append(Array(line.utf8))
        bytes += line.utf8.count + 48
        if bytes >= memoryLimit { try spill() }
    }

    /// Calls `body` with every line, sorted, each ending in a line feed; removes the run files.
    func finish(_ body: ([UInt8]) throws -> Void) throws {
        defer { for run in runs { try? FileManager.default.removeItem(atPath: run) } }
        guard !runs.isEmpty else {
            for line in sortedLines() { try body(line + [0x0A]) }
            return
        }
        try spill()
        var readers = try runs.map { try LineReader(path: $0) }
        var heads = try readers.indices.map { try readers[$0].next() }
        while let smallest = heads.indices.filter({ heads[$0] != nil })
            .min(by: { heads[$0]!.lexicographicallyPrecedes(heads[$1]!) })
        {
            try body(heads[smallest]! + [0x0A])
            heads[smallest] = try readers[smallest].next()
        }
    }

    private func sortedLines() -> [[UInt8]] {
        lines.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private func spill() throws {
        guard !lines.isEmpty else { return }
        let path = "\(folder)/run-\(runs.count)"
        var output: [UInt8] = []
        for line in sortedLines() { output += line + [0x0A] }
        guard FileManager.default.createFile(atPath: path, contents: Data(output)) else {
            throw ArchiveError.io(path: path, message: "cannot write a temporary file")
        }
        runs.append(path)
        lines.removeAll()
        bytes = 0
    }

    /// Reads a run file line by line.
    private struct LineReader {
        let handle: FileHandle
        var buffer: [UInt8] = []
        var start = 0
        var atEnd = false

        init(path: String) throws {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw ArchiveError.io(path: path, message: "cannot read a temporary file")
            }
            self.handle = handle
        }

        mutating func next() throws -> [UInt8]? {
            while true {
                if let newline = buffer[start...].firstIndex(of: 0x0A) {
                    defer { start = newline + 1 }
                    return Array(buffer[start..<newline])
                }
                if atEnd { return nil }
                buffer.removeFirst(start)
                start = 0
                let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
                if chunk.isEmpty { atEnd = true } else { buffer += chunk }
            }
        }
    }
}
