internal import CSpawn
import Foundation
import MirrorCore
import MirrorLock

#if canImport(Glibc)
import Glibc
#endif

/// One running Chromium, driven over its DevTools pipe. It leads a process group of its own and
/// dies with the thread that started it (`PR_SET_PDEATHSIG`): that thread waits for it, so it
/// lives exactly as long as the browser, and a mirror killed with SIGKILL takes the browser
/// with it. When the browser ends, whatever is left of its group is killed too.
final class BrowserProcess: Sendable {
    let pid: pid_t
    let devTools: DevToolsPipe
    /// Profiles are named `mirror-browser-<pid of mirror>-<UUID>` in the temporary folder.
    static let profilePrefix = "mirror-browser-"
    /// The browser's own `--user-data-dir`, removed when it ends.
    let profile: String
    private let exit: ProcessExit

    private init(pid: pid_t, devTools: DevToolsPipe, profile: String, exit: ProcessExit) {
        self.pid = pid
        self.devTools = devTools
        self.profile = profile
        self.exit = exit
    }

    /// Starts `executable` with `arguments` (plus `--remote-debugging-pipe` and the profile).
    static func launch(executable: String, arguments: [String]) async throws -> BrowserProcess {
        // A write to a browser that has ended must fail (EPIPE), not end mirror.
        signal(SIGPIPE, SIG_IGN)
        // Named by this process, so that the next launch removes a profile a killed mirror left.
        AbandonedFiles.remove(in: NSTemporaryDirectory(), prefix: profilePrefix)
        let profile = NSTemporaryDirectory() + profilePrefix + "\(getpid())-" + UUID().uuidString
        do {
            try FileManager.default.createDirectory(
                atPath: profile, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BrowserError.launchFailed("cannot make the browser's profile folder \(profile): \(error.localizedDescription)")
        }
        var commandPipe: [Int32] = [0, 0]
        var eventPipe: [Int32] = [0, 0]
        guard mirror_pipe_cloexec(&commandPipe) == 0, mirror_pipe_cloexec(&eventPipe) == 0 else {
            throw BrowserError.launchFailed("cannot make the browser's pipes: \(String(cString: strerror(errno)))")
        }
        let toBrowser = commandPipe
        let fromBrowser = eventPipe
        let log = (try? PosixFile.open(profile + "/browser.log", flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)) ?? -1
        let argv = [executable] + arguments + ["--remote-debugging-pipe", "--user-data-dir=\(profile)", "about:blank"]
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let exit = ProcessExit()
        let pid: pid_t = await withCheckedContinuation { continuation in
            let thread = Thread {
                let pid = withCStrings(argv) { argv in
                    withCStrings(environment) { envp in
                        mirror_spawn_piped(executable, argv, envp, toBrowser[0], fromBrowser[1], log >= 0 ? log : 2)
                    }
                }
                let spawnError = errno
                continuation.resume(returning: pid < 0 ? -spawnError : pid)
                guard pid > 0 else { return }
                // Waits without reaping, so that the group's number stays the browser's until its
                // stragglers (renderers, the zygote) are killed; then reaps.
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
                kill(-pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                exit.mark()
            }
            thread.name = "mirror browser \(executable)"
            thread.start()
        }
        close(toBrowser[0])
        close(fromBrowser[1])
        if log >= 0 { close(log) }
        guard pid > 0 else {
            close(toBrowser[1])
            close(fromBrowser[0])
            try? FileManager.default.removeItem(atPath: profile)
            throw BrowserError.launchFailed("cannot start \(executable): \(String(cString: strerror(-pid)))")
        }
        let process = BrowserProcess(
            pid: pid, devTools: DevToolsPipe(commands: toBrowser[1], events: fromBrowser[0]), profile: profile, exit: exit)
        do {
            try await process.devTools.call("Browser.getVersion", timeout: .seconds(30))
        } catch {
            let log = (try? String(contentsOfFile: profile + "/browser.log", encoding: .utf8)) ?? ""
            await process.terminate()
            let lastLines = log.split(separator: "\n").suffix(3).joined(separator: "\n")
            throw BrowserError.launchFailed(
                "\(executable) did not start its DevTools pipe (\(error))\(lastLines.isEmpty ? "" : ":\n" + lastLines)")
        }
        return process
    }

    var hasEnded: Bool { exit.hasEnded }

    /// Asks the browser to close, kills its process group if it has not ended within two
    /// seconds, and removes its profile.
    func terminate() async {
        if !hasEnded {
            _ = try? await devTools.call("Browser.close", timeout: .seconds(2))
            let killer = Task { [pid] in
                try await Task.sleep(for: .seconds(2))
                kill(-pid, SIGKILL)
            }
            await exit.wait()
            killer.cancel()
        }
        try? FileManager.default.removeItem(atPath: profile)
    }
}

/// The end of a child process, which the thread that waits for it marks.
private final class ProcessExit: Sendable {
    private let state = Locked<(ended: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    var hasEnded: Bool { state.withLock { $0.ended } }

    func mark() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state in
                if !state.ended { state.waiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
