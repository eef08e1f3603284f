import Foundation

/// Temporary files and folders named `<prefix><pid>`, left by a pack, unpack or search index
/// that was killed (kill -9, power loss): removed by the next one, once their process is gone.
public enum AbandonedFiles {
    public static func remove(in folder: String, prefix: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }
}
