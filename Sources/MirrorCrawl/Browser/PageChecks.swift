import MirrorCore
import MirrorLock

#if canImport(Glibc)
import Glibc
#endif

/// The pages `--browser` loaded that wait for the offline check, and what their check needs,
/// kept in the folder's `.mirror/checks/` (not in memory: a screenshot is 100 KB or more): the
/// live page's screenshot as it opened, and its snapshot (the rendered DOM, a form the page's
/// copy may take instead of its own bytes). Checked once the folder is finished
/// (`OfflineCheck`); the folder is emptied then, unless its screenshots are kept.
final class PageChecks: Sendable {
    struct Pending: Sendable {
        let item: CrawlItem
        /// The page's file, relative to the folder.
        let path: String
        let form: RenderedPage.CopyForm
        /// What its scripts fetched (`RenderedPage.data`).
        let data: [String]
        let number: Int
    }

    static let folderName = ".mirror/checks"

    /// `.mirror/checks` in the crawl's folder.
    let folder: String
    private struct State {
        var next = 0
        var pages: [Pending] = []
        var checkedPaths: Set<String> = []
    }

    private let pending = Locked(State())

    init(siteFolder: String) {
        folder = siteFolder + "/" + Self.folderName
    }

    func livePath(_ number: Int) -> String { folder + "/\(number).live.png" }
    /// The copy's screenshot; `retried`: in its other form.
    func offlinePath(_ number: Int, retried: Bool = false) -> String { folder + "/\(number).\(retried ? "retried" : "offline").png" }
    func snapshotPath(_ number: Int) -> String { folder + "/\(number).snapshot.html" }

    /// Keeps what the check of `item`'s page needs; a page without a live screenshot (the
    /// check is off, or the page did not settle) is not checked.
    func add(_ item: CrawlItem, savedAt path: String, page: RenderedPage) throws {
        guard let screenshot = page.screenshot else { return }
        // URLs that share a file (`/` and `/index.html`) share its check: checked, and saved again, once.
        let number: Int? = pending.withLock { state in
            guard state.checkedPaths.insert(path).inserted else { return nil }
            state.next += 1
            return state.next
        }
        guard let number else { return }
        try FolderMaker().make(folder)
        try Self.write(screenshot, to: livePath(number))
        if let snapshot = page.snapshot { try Self.write(snapshot, to: snapshotPath(number)) }
        pending.withLock { $0.pages.append(Pending(item: item, path: path, form: page.form, data: page.data, number: number)) }
    }

    /// The pages added since the last call.
    func take() -> [Pending] {
        pending.withLock { state in
            defer { state.pages = [] }
            return state.pages
        }
    }

    /// Removes the check's files, and the folder once empty.
    func removeFiles(of number: Int) {
        for path in [livePath(number), offlinePath(number), offlinePath(number, retried: true), snapshotPath(number)] {
            try? PosixFile.remove(path)
        }
    }

    /// Removes what an earlier, interrupted crawl left, before this one adds its own.
    func clearLeftovers() {
        FolderListing.forEachName(in: folder) { name in try? PosixFile.remove(folder + "/" + name) }
    }

    func removeFolderIfEmpty() {
        try? PosixFile.removeFolder(folder)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = try PosixFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(descriptor) }
        try PosixFile.writeAll(descriptor, bytes, path: path)
    }
}
