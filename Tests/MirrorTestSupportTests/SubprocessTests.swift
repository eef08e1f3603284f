import CSpawn
import Foundation
import MirrorLock
import MirrorTestSupport
import Testing

@Suite("Subprocess")
struct SubprocessTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)").path

    @Test func streamsGoWhereTheyAreToldAndTheExitCodeComesBack() async throws {
        try Data("from a file\n".utf8).write(to: URL(fileURLWithPath: base + ".in"))
        defer {
            unlink(base + ".in")
            unlink(base + ".out")
        }
        let child = try Subprocess(
            "/bin/sh", ["-c", "cat; echo \"$GREETING\" >&2; exit 3"], environment: ["GREETING": "hello"],
            stdin: .file(base + ".in"), stdout: .file(base + ".out"), stderr: .sameAsOutput)
        #expect(try await child.exit() == .exited(3))
        #expect(!child.isRunning)
        #expect(try String(contentsOfFile: base + ".out", encoding: .utf8) == "from a file\nhello\n")
    }

    @Test func aSignalledChildSaysWhichSignal() async throws {
        let child = try Subprocess("/bin/sleep", ["30"])
        #expect(child.isRunning)
        child.signal(SIGTERM)
        #expect(try await child.exit() == .signalled(SIGTERM))
    }

    @Test func theChildInheritsNoDescriptorButTheStandardThree() async throws {
        let leaked = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        defer { close(leaked) }
        defer { unlink(base + ".out") }
        let child = try Subprocess("/bin/sh", ["-c", "ls /proc/$$/fd"], stdout: .file(base + ".out"))
        #expect(try await child.exit() == .exited(0))
        let descriptors = try String(contentsOfFile: base + ".out", encoding: .utf8).split(separator: "\n")
        #expect(!descriptors.contains(Substring(String(leaked))), "\(descriptors)")
    }

    @Test func aMissingProgramIsAnErrorNotACrash() {
        #expect(throws: ChildProcess.Failure.self) { try Subprocess("/nonexistent/program", []) }
    }

    /// What keeps a crashed test from leaving its children running: a child started by
    /// `mirror_spawn` gets its death signal when the thread that started it ends, as when the
    /// whole process dies.
    @Test func aChildGetsItsDeathSignalWhenItsStarterEnds() async throws {
        let spawned = Locked<Int32>(0)
        let thread = Thread {
            let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
            defer { argv.forEach { free($0) } }
            let envp: [UnsafeMutablePointer<CChar>?] = [nil]
            spawned.withLock { $0 = mirror_spawn("/bin/sleep", argv, envp, 0, 1, 2, uid_t.max, gid_t.max, SIGTERM) }
        }
        thread.start()
        var pid: Int32 = 0
        for _ in 0..<1_000 where pid == 0 {
            try await Task.sleep(for: .milliseconds(5))
            pid = spawned.withLock { $0 }
        }
        try #require(pid > 0)
        var status: Int32 = 0
        var reaped: Int32 = 0
        for _ in 0..<1_000 where reaped == 0 {
            try await Task.sleep(for: .milliseconds(5))
            reaped = waitpid(pid, &status, WNOHANG)
        }
        if reaped == 0 { kill(pid, SIGKILL) }
        #expect(reaped == pid, "the child outlived the thread that started it")
        #expect(status & 0x7f == SIGTERM)
    }
}
