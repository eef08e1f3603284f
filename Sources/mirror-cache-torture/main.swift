// A cache writer for the crash tests: it stores, replaces and removes entries as fast as
// it can, printing a line after each commit, until it is killed (the tests send SIGKILL
// at random moments and then check what the cache holds).
//
//     mirror-cache-torture DIR SEED [group]
//
// With `group`, index rows commit in groups of 16 (as a crawl's do, in larger groups), and two
// threads store at once, each its own URLs: one stores while the other's group commits.
//
// Each body names its URL and sequence number and is otherwise a pure function of them,
// so a reader can tell an intact body from a damaged or mixed-up one.
import Foundation
import MirrorCache
import MirrorTestSupport
import NIOHTTP1

let arguments = CommandLine.arguments
guard (3...4).contains(arguments.count), let seed = UInt64(arguments[2]), arguments.count == 3 || arguments[3] == "group" else {
    FileHandle.standardError.write(Data("usage: mirror-cache-torture DIR SEED [group]\n".utf8))
    exit(2)
}
let grouped = arguments.count == 4
var configuration = CacheStore.Configuration()
if grouped { configuration.groupCommit = CacheStore.GroupCommit(entries: 16, age: .seconds(3600)) }
let store = try CacheStore(directory: arguments[1], configuration: configuration)
DispatchQueue.concurrentPerform(iterations: grouped ? 2 : 1) { writer in
    do {
        try write(to: store, writer: writer, seed: seed &+ UInt64(writer))
    } catch {
        FileHandle.standardError.write(Data("writer \(writer): \(error)\n".utf8))
        exit(1)
    }
}

/// Stores, replaces and removes entries of the URLs `http://torture.test/<writer>-<n>` until killed.
@Sendable func write(to store: CacheStore, writer: Int, seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    var sequence = 0
    while true {
        sequence += 1
        let url = "http://torture.test/\(writer)-\(generator.next() % 40)"
        let action = generator.next() % 10
        if action == 0 {
            // Said before, not after: a removal the test never heard of could look like a lost commit.
            say("removing \(url)")
            try store.remove(url: url)
        } else {
            // Sizes from empty to 600 KB: both the in-memory tier and streamed files.
            let size = Int(generator.next() % (action < 3 ? 600_000 : 20_000))
            let body = try store.makeBodyWriter()
            try body.write(TortureBody.bytes(url: url, sequence: sequence, size: size))
            let head = CachedResponseHead(
                status: 200, headers: ["Content-Type": "application/octet-stream", "X-Sequence": "\(sequence)"],
                requestTime: Double(sequence), responseTime: Double(sequence))
            try store.store(url: url, request: [:], head: head, body: body)
            say("committed \(url) \(sequence)")
        }
    }
}

/// Writes a line at once (unbuffered, in one write), so the test sees exactly what was committed before the kill.
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
