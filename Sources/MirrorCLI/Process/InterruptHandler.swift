import Dispatch
import Foundation

/// Turns the first SIGINT into a callback (a graceful stop); a second one exits at once.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    /// - Parameter notice: what the first Ctrl-C prints.
    init(notice: String = "interrupted, finishing what was saved (Ctrl-C again to quit)", _ onInterrupt: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let count = ManagedCounter()
        source.setEventHandler {
            if count.increment() == 0 {
                FileHandle.standardError.write(Data("\nmirror: \(notice)\n".utf8))
                onInterrupt()
            } else {
                exit(ExitStatus.interrupted.rawValue)
            }
        }
        source.resume()
        self.source = source
    }

    func cancel() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}

/// A counter safe to use from the signal handler's queue.
private final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    /// Returns the value before incrementing.
    func increment() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }
}
