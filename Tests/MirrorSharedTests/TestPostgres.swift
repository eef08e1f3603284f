import Foundation
import MirrorLock
import MirrorTestSupport

/// A throwaway PostgreSQL server on 127.0.0.1, in a folder of its own: `initdb`, then `postgres`
/// as a child of the test process (which dies with it: a crashed test leaves no server
/// running), stopped and its folder removed at the end. Run as the `postgres` user when the
/// tests run as root (PostgreSQL refuses root). scripts/setup installs `postgresql`.
final class TestPostgres: Sendable {
    let folder: String
    private let binaries: String
    private let server: Locked<Subprocess?>
    private let listening: Locked<Int>

    /// The port the server listens on: chosen again when another process took it first.
    var port: Int { listening.withLock { $0 } }

    /// The address workers are given.
    var url: String { "postgres://mirror@127.0.0.1:\(port)/postgres" }

    /// Runs `body` with a server started for it, stopped and removed after, however `body` ends.
    static func with<Result>(_ body: (TestPostgres) async throws -> Result) async throws -> Result {
        let server = try await make()
        do {
            try await server.start(movingIfTaken: true)
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    private init(folder: String, port: Int, binaries: String) {
        self.folder = folder
        self.binaries = binaries
        server = Locked(nil)
        listening = Locked(port)
    }

    private static func make() async throws -> TestPostgres {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw ChildProcess.Failure(message: "PostgreSQL is missing (/usr/lib/postgresql): scripts/setup installs postgresql")
        }
        // Under /tmp, not $TMPDIR: the server's user must reach the folder.
        let folder = "/tmp/mirror-postgres-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = TestPostgres(folder: folder, port: try freePort(), binaries: "/usr/lib/postgresql/\(version)/bin")
        if getuid() == 0 { _ = try await ChildProcess.output("/bin/chown", ["postgres", folder]) }
        let initdb = [server.binaries + "/initdb", "-D", folder + "/data", "-U", "mirror", "--auth=trust", "--no-sync"]
        if getuid() == 0 {
            _ = try await ChildProcess.output("/usr/sbin/runuser", ["-u", "postgres", "--"] + initdb)
        } else {
            _ = try await ChildProcess.output(initdb[0], Array(initdb.dropFirst()))
        }
        return server
    }

    /// Starts the server and waits until it takes connections. A port is only free until someone
    /// binds it: when another process took it between its choice and the server's start, the
    /// server is started on another port if `movingIfTaken` (a restart keeps its port, which the
    /// workers know).
    private func start(movingIfTaken: Bool) async throws {
        for _ in 0..<5 {
            let outcome = try await startOnce()
            if outcome == .ready { return }
            guard outcome == .portTaken, movingIfTaken else { break }
            let port = try Self.freePort()
            listening.withLock { $0 = port }
        }
        let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
        throw ChildProcess.Failure(message: "PostgreSQL did not start on port \(port): \(log)")
    }

    private enum StartOutcome { case ready, portTaken, failed }

    private func startOnce() async throws -> StartOutcome {
        let port = self.port
        let process = try Subprocess(
            binaries + "/postgres",
            [
                "-D", folder + "/data", "-p", String(port), "-k", folder, "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=200",
            ], stdout: .file(folder + "/log"), stderr: .sameAsOutput, user: getuid() == 0 ? "postgres" : nil, deathSignal: SIGQUIT)
        server.withLock { $0 = process }
        for _ in 0..<600 {
            guard process.isRunning else { break }
            if isReady { return .ready }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
        return !process.isRunning && log.contains("Address already in use") ? .portTaken : .failed
    }

    /// Whether this server takes connections, by the status line of its own `postmaster.pid`
    /// rather than by asking the port, where another server that took it first would answer.
    private var isReady: Bool {
        guard let pid = try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8) else { return false }
        let lines = pid.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count > 7 && lines[7].trimmingCharacters(in: .whitespaces) == "ready"
    }

    /// Stops the server at once and removes its folder.
    func stop() async {
        await shutDown(SIGQUIT)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Restarts the server (as a database restart in the middle of a crawl): a fast shutdown,
    /// which ends every connection, then a start on the same port.
    func restart() async throws {
        await shutDown(SIGINT)
        try await start(movingIfTaken: false)
    }

    /// Sends `signal` (SIGINT: fast shutdown, SIGQUIT: immediate) and waits for the server to end.
    private func shutDown(_ signal: Int32) async {
        guard let process = server.withLock({ $0 }) else { return }
        process.signal(signal)
        _ = try? await process.exit()
    }

    /// Runs one SQL statement (psql) and returns what it printed, unaligned.
    @discardableResult
    func sql(_ statement: String) async throws -> String {
        try await ChildProcess.output(
            binaries + "/psql",
            [
                "-X", "-A", "-t", "-h", "127.0.0.1", "-p", String(port), "-U", "mirror",
                "-d", "postgres", "-c", statement,
            ])
    }

    /// A TCP port nothing listens on now, below the kernel's range of ephemeral ports: the tests'
    /// own connections and servers on port 0 draw from that range, and could take a port chosen
    /// there before the server binds it.
    private static func freePort() throws -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let ephemeralStart = range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        let candidates = 10_000..<max(ephemeralStart, 10_001)
        for _ in 0..<100 {
            let port = Int.random(in: candidates)
            if isFree(port) { return port }
        }
        throw ChildProcess.Failure(message: "no free port in \(candidates) for PostgreSQL")
    }

    private static func isFree(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
