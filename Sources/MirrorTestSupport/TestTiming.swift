import Foundation

/// How long a test waits for something to happen: its usual wait times
/// `MIRROR_TEST_TIME_SCALE` (1 when unset). `scripts/test-sanitizers` sets it, since code under
/// ThreadSanitizer runs five to fifteen times slower, and a wait sized for a normal build would
/// end before a correct answer arrives.
public enum TestTiming {
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["MIRROR_TEST_TIME_SCALE"], let scale = Double(text), scale >= 1
        else { return 1 }
        return scale
    }()

    /// `seconds`, scaled.
    public static func seconds(_ seconds: Double) -> Double { seconds * scale }

    /// `minutes`, scaled and rounded up (for `.timeLimit`, which counts whole minutes).
    public static func minutes(_ minutes: Int) -> Int { Int((Double(minutes) * scale).rounded(.up)) }
}
