import Foundation
import MirrorTestSupport

/// A throwaway PostgreSQL server on 127.0.0.1, in a folder of its own: `initdb`, `pg_ctl start`,
/// and at the end `pg_ctl stop` and the folder removed. Run as the `postgres` user when the
/// tests run as root (PostgreSQL refuses root). scripts/setup installs `postgresql`.
struct TestPostgres {
    let folder: String
    let port: Int
    private let binaries: String

    /// The address workers are given.
    var url: String { "postgres://mirror@127.0.0.1:\(port)/postgres" }

    /// Runs `body` with a server started for it, stopped and removed after, however `body` ends.
    static func with<Result>(_ body: (TestPostgres) async throws -> Result) async throws -> Result {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func start() async throws -> TestPostgres {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw ChildProcess.Failure(message: "PostgreSQL is missing (/usr/lib/postgresql): scripts/setup installs postgresql")
        }
        // Under /tmp, not $TMPDIR: the server's user must reach the folder.
        let folder = "/tmp/mirror-postgres-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let server = TestPostgres(folder: folder, port: try freePort(), binaries: "/usr/lib/postgresql/\(version)/bin")
        if getuid() == 0 { _ = try await ChildProcess.output("/bin/chown", ["postgres", folder]) }
        try await server.run("initdb", ["-D", folder + "/data", "-U", "mirror", "--auth=trust", "--no-sync"])
        try await server.run("pg_ctl", [
            "-D", folder + "/data", "-l", folder + "/log", "-w", "start", "-o",
            "-p \(server.port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200",
        ])
        return server
    }

    /// Stops the server at once and removes its folder.
    func stop() async {
        try? await run("pg_ctl", ["-D", folder + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Restarts the server (as a database restart in the middle of a crawl).
    func restart() async throws {
        try await run("pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "restart"])
    }

    /// Runs one SQL statement (psql) and returns what it printed, unaligned.
    @discardableResult
    func sql(_ statement: String) async throws -> String {
        try await ChildProcess.output(binaries + "/psql", ["-X", "-A", "-t", "-h", "127.0.0.1", "-p", String(port), "-U", "mirror",
                                                           "-d", "postgres", "-c", statement])
    }

    private func run(_ tool: String, _ arguments: [String]) async throws {
        if getuid() == 0 {
            _ = try await ChildProcess.output("/usr/sbin/runuser", ["-u", "postgres", "--", binaries + "/" + tool] + arguments)
        } else {
            _ = try await ChildProcess.output(binaries + "/" + tool, arguments)
        }
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
