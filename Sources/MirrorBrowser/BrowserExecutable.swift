import Foundation

/// Finds the Chromium to drive: `--browser-path`, else `$MIRROR_BROWSER`, else the first of
/// `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
public enum BrowserExecutable {
    public static let candidates = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
    /// What to run to get one on Debian or Ubuntu.
    public static let installHint =
        "install Chromium (Debian: sudo apt-get install chromium), or give --browser-path FILE or $MIRROR_BROWSER"

    /// The executable's path; throws `BrowserError.notFound` saying how to get one.
    public static func locate(_ given: String?, environment: [String: String]? = nil) throws -> String {
        let environment = environment ?? ProcessInfo.processInfo.environment
        if let path = given ?? environment["MIRROR_BROWSER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let resolved = path.contains("/") ? path : search(path, in: environment["PATH"])
            guard let resolved, FileManager.default.isExecutableFile(atPath: resolved) else {
                throw BrowserError.notFound("no executable browser at \(path): \(installHint)")
            }
            return resolved
        }
        for name in candidates {
            if let found = search(name, in: environment["PATH"]) { return found }
        }
        throw BrowserError.notFound("no Chromium found on PATH (\(candidates.joined(separator: ", "))): \(installHint)")
    }

    private static func search(_ name: String, in path: String?) -> String? {
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
