import CSpawn
public import Foundation
import MirrorCore
import MirrorLock

#if canImport(Glibc)
import Glibc
#endif

/// A child process that dies with the process that started it.
///
/// The child is forked by a thread of its own, which waits for it and lives as long as it, and
/// gets `deathSignal` when that thread ends (`PR_SET_PDEATHSIG`): a test process that crashes
/// or is killed leaves no child running. The child's descriptors above the three standard ones
/// are closed and its signals handled by default. (Foundation's `Process` is not used: on Linux
/// its `run()` now and then crashed the whole test run, in the loop that closes the child's
/// inherited descriptors.)
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

    public let pid: Int32
    /// Set by the waiting thread when the child has ended and been reaped.
    private let ending = Ending()

    private final class Ending: Sendable {
        let termination = Locked<Termination?>(nil)
    }

    /// - Parameters:
    ///   - environment: the child's whole environment (this process's by default).
    ///   - user: the user to run it as (this process must be root), by name.
    ///   - deathSignal: what the child gets when this process ends first.
    public init(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .inherit,
        user: String? = nil, deathSignal: Int32 = SIGKILL
    ) throws {
        var (userID, groupID) = (uid_t.max, gid_t.max)
        if let user {
            guard let entry = getpwnam(user) else { throw ChildProcess.Failure(message: "no user \(user)") }
            (userID, groupID) = (entry.pointee.pw_uid, entry.pointee.pw_gid)
        }
        var opened: [Int32] = []
        defer { opened.forEach { close($0) } }
        func descriptor(_ stream: Stream, _ standard: Int32, output: Int32 = -1) throws -> Int32 {
            let flags = standard == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
            let path: String
            switch stream {
            case .inherit: return standard
            case .sameAsOutput: return output
            case .null: path = "/dev/null"
            case .file(let file): path = file
            }
            let descriptor: Int32
            do { descriptor = try PosixFile.open(path, flags: flags) } catch {
                throw ChildProcess.Failure(message: "cannot open \(path) for \(executable): \(error.message)")
            }
            opened.append(descriptor)
            return descriptor
        }
        let input = try descriptor(stdin, 0)
        let output = try descriptor(stdout, 1)
        let error = try descriptor(stderr, 2, output: output)

        let ending = self.ending
        let started = DispatchSemaphore(value: 0)
        let spawned = Locked<Int32>(0)
        let arguments = [executable] + arguments
        let environment = environment.map { "\($0.key)=\($0.value)" }
        let thread = Thread { [userID, groupID] in
            let argv = arguments.map { strdup($0) }
            let envp = environment.map { strdup($0) }
            let pid = mirror_spawn(executable, argv + [nil], envp + [nil], input, output, error, userID, groupID, deathSignal)
            spawned.withLock { $0 = pid < 0 ? -errno : pid }
            (argv + envp).forEach { free($0) }
            started.signal()
            guard pid > 0 else { return }
            // Waits without reaping, then reaps under the lock `signal` holds while it signals,
            // so that a signal never reaches another process that got the number.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
            ending.termination.withLock { ended in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                // WIFEXITED/WEXITSTATUS/WTERMSIG are C macros that Swift does not import.
                ended = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            }
        }
        thread.name = "subprocess \(executable)"
        thread.start()
        started.wait()
        let pid = spawned.withLock { $0 }
        guard pid > 0 else {
            throw ChildProcess.Failure(message: "cannot start \(executable): \(String(cString: strerror(-pid)))")
        }
        self.pid = pid
    }

    /// Whether the child is still running.
    public var isRunning: Bool { termination == nil }

    /// How the child ended, or nil while it runs.
    public var termination: Termination? { ending.termination.withLock { $0 } }

    public func signal(_ number: Int32) {
        ending.termination.withLock { if $0 == nil { kill(pid, number) } }
    }

    /// Waits for the child to end without holding a thread of the cooperative pool.
    @discardableResult
    public func exit(polling interval: Duration = .milliseconds(5)) async throws -> Termination {
        while true {
            if let termination { return termination }
            try await Task.sleep(for: interval)
        }
    }
}
