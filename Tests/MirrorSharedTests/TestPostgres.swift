import Foundation
import MirrorLock
import MirrorTestSupport

/// A throwaway PostgreSQL server on 127.0.0.1, in a folder of its own: `initdb`, then `postgres`
/// as a child of the test process (which dies with it: a crashed test leaves no server
/// running), stopped and its folder removed at the end. Run as the `postgres` user when the
/// tests run as root (PostgreSQL refuses root). scripts/setup installs `postgresql`.
final class TestPostgres: Sendable {
    let folder: String
    let port: Int
    private let binaries: String
    private let server: Locked<Subprocess?>

    /// The address workers are given.
    var url: String { "postgres://mirror@127.0.0.1:\(port)/postgres" }

    /// Runs `body` with a server started for it, stopped and removed after, however `body` ends.
    static func with<Result>(_ body: (TestPostgres) async throws -> Result) async throws -> Result {
        let server = try await make()
        do {
            try await server.start()
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
        self.port = port
        self.binaries = binaries
        server = Locked(nil)
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

    /// Starts the server and waits until it takes connections.
    private func start() async throws {
        let process = try Subprocess(
            binaries + "/postgres",
            [
                "-D", folder + "/data", "-p", String(port), "-k", folder, "-c", "listen_addresses=127.0.0.1",
                "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=200",
            ], stdout: .file(folder + "/log"), stderr: .sameAsOutput, user: getuid() == 0 ? "postgres" : nil, deathSignal: SIGQUIT)
        server.withLock { $0 = process }
        for _ in 0..<600 {
            let ready = try await ChildProcess.run(
                URL(fileURLWithPath: binaries + "/pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port)])
            if ready.status == 0 { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
        throw ChildProcess.Failure(message: "PostgreSQL did not start on port \(port): \(log)")
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
        try await start()
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

    /// A TCP port nothing listens on now.
    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
