import Foundation
import MirrorTestSupport
import Testing

@Suite("Subprocess")
struct SubprocessTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)").path

    @Test func streamsGoWhereTheyAreToldAndTheExitCodeComesBack() async throws {
        try Data("from a file\n".utf8).write(to: URL(fileURLWithPath: base + ".in"))
        defer { unlink(base + ".in"); unlink(base + ".out") }
        let child = try Subprocess("/bin/sh", ["-c", "cat; echo \"$GREETING\" >&2; exit 3"], environment: ["GREETING": "hello"],
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
}
