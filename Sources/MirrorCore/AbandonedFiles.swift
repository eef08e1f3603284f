import Foundation

/// Temporary files and folders named `<prefix><pid>` or `<prefix><pid>-<anything>`, left by a
/// pack, an unpack, a search index or a browser profile whose process was killed (kill -9,
/// power loss): removed by the next one, once their process is gone.
public enum AbandonedFiles {
    public static func remove(in folder: String, prefix: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            let owner = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let pid = Int32(owner), pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
