/// The bodies the crash-test writer stores: a pure function of URL, sequence number and
/// size, so a checker can regenerate the expected bytes from an entry alone.
public enum TortureBody {
    public static func bytes(url: String, sequence: Int, size: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: sequence &* 2_654_435_761)
        for character in url.utf8 { state = state &* 31 &+ UInt32(character) }
        var bytes = [UInt8](repeating: 0, count: size)
        for index in 0..<size {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return bytes
    }
}
