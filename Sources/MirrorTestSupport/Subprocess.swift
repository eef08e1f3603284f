public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`.
///
/// The tests do not use Foundation's `Process`: on Linux its `run()` now and then crashes the
/// whole test run (a SIGSEGV in the loop that closes the child's inherited descriptors, about one
/// clean run in five here). This type spawns with the C library alone, closes every descriptor
/// above the three standard ones in the child, and restores default signal handling there.
public final class Subprocess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// The same stream as the test process's.
        case inherit
        /// A file: read from for standard input, created or truncated for output.
        case file(String)
        /// For standard error: wherever standard output goes.
        case sameAsOutput
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    public let pid: pid_t
    private let ended = Mutex<Termination?>(nil)

    /// - Parameter environment: the child's whole environment (this process's by default).
    public init(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .inherit
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .null:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                let flags = descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644)
            case .sameAsOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
            }
        }
        _ = Self.closeFrom?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv + [nil], envp + [nil])
        guard status == 0 else {
            throw ChildProcess.Failure(message: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    /// Whether the child is still running; reaps it when it has ended.
    public var isRunning: Bool { poll() == nil }

    /// How the child ended, or nil while it runs.
    public var termination: Termination? { poll() }

    public func signal(_ number: Int32) {
        if ended.withLock({ $0 == nil }) { kill(pid, number) }
    }

    /// Waits for the child to end without holding a thread of the cooperative pool.
    @discardableResult
    public func exit(polling interval: Duration = .milliseconds(5)) async throws -> Termination {
        while true {
            if let termination = poll() { return termination }
            try await Task.sleep(for: interval)
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time
    /// because Swift's Glibc module is imported without `_GNU_SOURCE`, which declares it.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    private func poll() -> Termination? {
        ended.withLock { ended in
            if ended != nil { return ended }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
            guard result == pid else { return nil }
            // WIFEXITED/WEXITSTATUS/WTERMSIG are C macros that Swift does not import.
            ended = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            return ended
        }
    }
}
