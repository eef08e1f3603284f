internal import CZlibShim

/// The zlib this program runs with.
public enum Zlib {
    /// The library's version, as `1.2.13`.
    public static var version: String { String(cString: zlibVersion()) }
}
