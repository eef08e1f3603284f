import Foundation
import MirrorCore

/// Makes `PathMapper`'s preferred paths unique within one offline folder, so that no two URLs
/// write one file and no file sits where a folder is needed — also on disks that ignore case
/// or Unicode normalization (APFS, NTFS).
///
/// A URL gets its preferred path unless another URL holds that name in its folder, compared
/// case- and NFKC-folded (`A.html` and `a.html`, `ä` and `a` + U+0308, a file `a` and a folder
/// `a`). Then:
/// - it shares the file of a URL with the same preferred path and the same body (SHA-256).
///   Such URLs differ only in how the site spells one file — `/` and `/index.html`, `/dir/` and
///   `/dir/index.html`, `/docs` and `/docs.html` (HTML), `/photo` and `/photo.jpg` (JPEG), http
///   and https — so they sit in one folder with one query, and the same bytes rewrite to the
///   same links. Nothing else is shared: not names equal only once folded, not an empty digest.
/// - Otherwise it gets the name with `~` and 4 hex digits of its URL's SHA-256 before the
///   extension (`index~3f2a.html`; a folder: `docs~3f2a`, from its preferred path), then `-2`,
///   `-3`… should that be taken too. Unlike a counter, the suffix depends on the URL alone, not
///   on how many URLs collided before it nor on the order a concurrent crawl wrote them in.
///
/// Names are stable: a URL keeps its path while its preferred path stays the same (a newcomer
/// that collides gets the suffix, never the holder), and a folder keeps its name. A URL moves
/// only when its preferred path changes (a new content type) or when it shared a file and now
/// brings another body; the file it leaves stays with its other holders, or with no one. When
/// those bring the same new body, `rejoin` puts the spellings back in one file.
///
/// A value type, used under the caller's lock; rebuilt from the `assignments` saved before.
public struct PathRegistry: Sendable {
    /// Where one URL's file is: what to save (in a crawl journal) to rebuild the registry.
    public struct Assignment: Sendable, Hashable, Codable {
        public var url: String
        /// `PathMapper`'s path for it, `/`-joined.
        public var preferred: String
        /// The path it was given, `/`-joined.
        public var path: String
        /// SHA-256 of the body saved there (hex); empty when unknown, and then never shared.
        public var sha256: String

        public init(url: String, preferred: String, path: String, sha256: String) {
            self.url = url
            self.preferred = preferred
            self.path = path
            self.sha256 = sha256
        }
    }

    private struct Body: Hashable {
        var preferred: String
        var sha256: HexDigest
    }

    /// The longest component, in UTF-8 bytes: a suffixed name is cut to fit, keeping its extension.
    public let maxSegmentBytes: Int
    /// Each URL's path, and each file with its preferred path, body and URLs: a URL shares a
    /// file only with URLs of the same preferred path and body. At 100,000 URLs the registry
    /// is the largest thing a crawl holds.
    private var table = FileTable()
    /// The actual path of every folder, by preferred path.
    private var folders: [String: String] = [:]
    /// Every name taken, as the `NameSlot` of its folder and folded name: a 64-bit hash, not the
    /// strings (a set of 100,000 pairs of strings took 8 MB). Two names with one hash would make
    /// the second look taken, so it would get a suffix: a longer name, still unique and the
    /// same on every run; no two names taken ever share a hash.
    private var taken: Set<NameSlot> = []
    /// The file holding each preferred path and body, for URLs that may share it, when that
    /// file is not at its preferred path (rare: a name taken moved it). One at its preferred
    /// path is found in `table` — a second table of every file took 12 MB at 100,000 URLs.
    private var movedShareable: [Body: String] = [:]

    /// - Parameter maxSegmentBytes: the mapper's (`PathMapper.maxSegmentBytes`).
    public init(maxSegmentBytes: Int = 200) {
        precondition(maxSegmentBytes >= 32, "maxSegmentBytes must leave room for a suffix and an extension")
        self.maxSegmentBytes = maxSegmentBytes
    }

    /// Rebuilds the registry from assignments saved before, in their order. One that conflicts
    /// with an earlier one (a name taken, a folder named otherwise) or has an unsafe component is
    /// left out: its URL gets a path anew when next assigned.
    public init(assignments: some Sequence<Assignment>, maxSegmentBytes: Int = 200) {
        self.init(maxSegmentBytes: maxSegmentBytes)
        for assignment in assignments {
            let sha256 = HexDigest(assignment.sha256)
            guard fits(assignment, sha256: sha256) else { continue }
            record(url: assignment.url, preferred: assignment.preferred, path: assignment.path, sha256: sha256)
        }
    }

    /// The URLs whose file is `path` (more than one when they share it).
    public func urls(at path: LocalPath) -> [String] { urls(at: path.string) }

    func urls(at path: String) -> [String] { table.file(at: path)?.urls ?? [] }

    /// The path given to `url`, `/`-joined; nil when it has none.
    public func path(of url: String) -> String? { table.path(of: url) }

    /// Every URL with a path.
    var urls: some Sequence<String> { table.urls }

    /// Forgets `url`'s path (its file was not saved after all).
    public mutating func forget(_ url: String) { release(url) }

    /// Every URL's assignment, by URL.
    public var assignments: [Assignment] {
        table.urls.compactMap { url in table.path(of: url).flatMap { assignment(of: url, at: $0) } }.sorted { $0.url < $1.url }
    }

    private func assignment(of url: String, at path: String) -> Assignment? {
        table.file(at: path).map { Assignment(url: url, preferred: $0.preferred, path: path, sha256: $0.sha256.text) }
    }

    /// The path of `url`'s file: its preferred path when free, its own path when it has one
    /// already, a shared one, or the preferred path with a suffix (see the type's comment).
    /// - Parameters:
    ///   - url: the normalized URL (`URLNormalizer`, so ASCII but for an internationalized host,
    ///     whose canonically equivalent spellings, one host, are one URL here).
    ///   - preferred: `PathMapper.path(for:contentType:)` of `url`.
    ///   - sha256: the body's SHA-256 in hex; empty when unknown.
    public mutating func assign(url: String, preferred: LocalPath, sha256: String) -> LocalPath {
        precondition(preferred.components.count >= 1, "a path has at least a file name")
        let wanted = preferred.string
        let sha256 = HexDigest(sha256)
        if let path = table.path(of: url), let file = table.file(at: path), file.preferred == wanted {
            if file.sha256 != sha256 {
                guard file.urls.count == 1 else { return moved(url: url, preferred: preferred, sha256: sha256) }
                changeBody(of: path, to: sha256)
            }
            return Self.localPath(path)
        }
        return moved(url: url, preferred: preferred, sha256: sha256)
    }

    /// A file left by URLs that share another one again (`rejoin`).
    public struct Rejoined: Sendable {
        /// The URLs of the file left.
        public var urls: [String]
        /// The file left, and the file they now share.
        public var left: String
        public var joined: String
        /// A URL whose file `joined` was already.
        public var sharer: String
    }

    /// URLs that share a file again: when a URL that shared a file brought another body, it
    /// moved to a name of its own (`assign`); once the file at its preferred path holds that
    /// body too (its other URLs brought the same), it goes back to sharing it, as a crawl into
    /// a new folder would have it. The caller moves their records and deletes the files left.
    public mutating func rejoin() -> [Rejoined] {
        var moves: [Rejoined] = []
        for path in table.paths {
            // The file found at the preferred path may be this very one, under a canonically
            // equivalent spelling (`ä` and `a` + U+0308); the URLs join it at its holders' spelling.
            guard let file = table.file(at: path), !path.bytesEqual(file.preferred), !file.sha256.isEmpty,
                let joined = table.file(at: file.preferred), joined.preferred == file.preferred, joined.sha256 == file.sha256,
                let joinedPath = table.path(of: joined.firstURL), !joinedPath.bytesEqual(path)
            else { continue }
            moves.append(Rejoined(urls: file.urls, left: path, joined: joinedPath, sharer: joined.firstURL))
        }
        for move in moves {
            for url in move.urls {
                release(url)
                record(url: url, preferred: move.joined, path: move.joined, sha256: table.file(at: move.joined)!.sha256)
            }
        }
        return moves
    }

    /// Gives `url` a path anew, releasing the one it had.
    private mutating func moved(url: String, preferred: LocalPath, sha256: HexDigest) -> LocalPath {
        release(url)
        let wanted = preferred.string
        if let shared = shareableFile(preferred: wanted, sha256: sha256) {
            record(url: url, preferred: wanted, path: shared, sha256: sha256)
            return Self.localPath(shared)
        }
        var folder = ""
        var preferredFolder = ""
        for component in preferred.components.dropLast() {
            preferredFolder = Self.joined(preferredFolder, component)
            folder =
                folders[preferredFolder]
                ?? Self.joined(folder, freeName(component, in: folder, hashing: "folder " + preferredFolder, isFolder: true))
        }
        let name = freeName(preferred.components.last!, in: folder, hashing: url, isFolder: false)
        let joined = Self.joined(folder, name)
        let path = joined.bytesEqual(wanted) ? wanted : joined  // as a rule, one string kept for both
        record(url: url, preferred: wanted, path: path, sha256: sha256)
        return Self.localPath(path)
    }

    /// `name` when no name in `folder` folds to the same, else `name` with a suffix.
    private func freeName(_ name: String, in folder: String, hashing key: String, isFolder: Bool) -> String {
        guard taken.contains(NameSlot(folder, name)) else { return name }
        let split = isFolder ? nil : PathMapper.splitExtension(name[...])
        let (stem, ext) = split.map { ($0.0, "." + $0.1) } ?? (name[...], "")
        let hash = ShortHash.of(key, bytes: 2)
        var attempt = 1
        while true {
            let mark = "~" + hash + (attempt == 1 ? "" : "-\(attempt)")
            let candidate = Self.cut(stem, toBytes: maxSegmentBytes - mark.utf8.count - ext.utf8.count) + mark + ext
            if !taken.contains(NameSlot(folder, candidate)) { return candidate }
            attempt += 1
        }
    }

    /// Whether a saved assignment can be taken as it is.
    private func fits(_ assignment: Assignment, sha256: HexDigest) -> Bool {
        let preferred = Self.components(assignment.preferred)
        let actual = Self.components(assignment.path)
        guard table.path(of: assignment.url) == nil, preferred.count == actual.count, actual.allSatisfy(Self.isSafe) else { return false }
        for step in Self.folders(preferred: assignment.preferred, path: assignment.path) {
            if let known = folders[step.preferred] {
                guard known == Self.joined(step.parent, step.name) else { return false }
            } else if taken.contains(NameSlot(step.parent, step.name)) {
                return false
            }
        }
        if let file = table.file(at: assignment.path) {
            return file.preferred == assignment.preferred && file.sha256 == sha256 && !sha256.isEmpty
        }
        return !taken.contains(Self.slot(of: assignment.path))
    }

    /// Takes the names of a consistent assignment.
    private mutating func record(url: String, preferred: String, path: String, sha256: HexDigest) {
        var folder = ""
        for step in Self.folders(preferred: preferred, path: path) {
            if folders[step.preferred] == nil {
                folders[step.preferred] = Self.joined(step.parent, step.name)
                taken.insert(NameSlot(step.parent, step.name))
            }
            folder = folders[step.preferred]!
        }
        taken.insert(NameSlot(folder, Self.components(path).last!))
        table.add(url: url, path: path, preferred: preferred, sha256: sha256)
        noteShareable(path, preferred: preferred, sha256: sha256)
    }

    /// The folders of the file at `path` (preferred: `preferred`), outermost first: each one's
    /// preferred path, the actual path of the folder holding it, and its actual name.
    private static func folders(preferred: String, path: String) -> [(preferred: String, parent: String, name: String)] {
        let actual = Self.components(path)
        let preferred = Self.components(preferred)
        var steps: [(preferred: String, parent: String, name: String)] = []
        var preferredFolder = ""
        var parent = ""
        for (wanted, name) in zip(preferred, actual).dropLast() {
            preferredFolder = joined(preferredFolder, wanted)
            steps.append((preferredFolder, parent, String(name)))
            parent = joined(parent, name)
        }
        return steps
    }

    /// A file URLs with this preferred path and body share, if there is one: its path as its
    /// holders have it. (`String`s compare canonically: `ä` and `a` + U+0308 are one preferred
    /// path, but two names on a disk that compares bytes, where only the holders' is written.)
    private func shareableFile(preferred: String, sha256: HexDigest) -> String? {
        guard !sha256.isEmpty else { return nil }
        if let file = table.file(at: preferred), file.preferred == preferred, file.sha256 == sha256 {
            return table.path(of: file.firstURL)
        }
        return movedShareable[Body(preferred: preferred, sha256: sha256)]
    }

    /// Notes that `path`, with this preferred path, holds the body `sha256` (see `movedShareable`).
    private mutating func noteShareable(_ path: String, preferred: String, sha256: HexDigest) {
        guard !sha256.isEmpty, !path.bytesEqual(preferred) else { return }
        let body = Body(preferred: preferred, sha256: sha256)
        if movedShareable[body] == nil { movedShareable[body] = path }
    }

    /// Notes that `path` no longer holds the body of `file`.
    private mutating func forgetShareable(_ path: String, _ file: FileTable.File) {
        let body = Body(preferred: file.preferred, sha256: file.sha256)
        if movedShareable[body] == path { movedShareable[body] = nil }
    }

    /// Forgets `url`'s path; its file's name is free again when no other URL holds it.
    private mutating func release(_ url: String) {
        guard let (path, emptied) = table.remove(url: url), let emptied else { return }
        taken.remove(Self.slot(of: path))
        forgetShareable(path, emptied)
    }

    /// The body of the file at `path`, held by one URL, changed (a re-crawl).
    private mutating func changeBody(of path: String, to sha256: HexDigest) {
        guard let file = table.file(at: path) else { return }
        forgetShareable(path, file)
        table.setBody(at: path, to: sha256)
        noteShareable(path, preferred: file.preferred, sha256: sha256)
    }

    /// `text` cut to at most `limit` UTF-8 bytes at a scalar boundary, without leaving half of a
    /// `%XX` escape (`%` only ever starts one in our names).
    private static func cut(_ text: Substring, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return String(text) }
        var kept: [Unicode.Scalar] = []
        var bytes = 0
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            if bytes > limit { break }
            kept.append(scalar)
        }
        if let percent = kept.suffix(2).firstIndex(of: "%") { kept.removeSubrange(percent...) }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: kept)
        return String(view)
    }

    private static func slot(of path: String) -> NameSlot {
        var components = components(path)
        let name = components.removeLast()
        return NameSlot(components.joined(separator: "/"), name)
    }

    private static func isSafe(_ component: String) -> Bool {
        // Bytes, not `contains("\\")`: Foundation's substring search took 5 % of a resume.
        !component.isEmpty && component != "." && component != ".."
            && !component.utf8.contains(UInt8(ascii: "\\")) && !component.utf8.contains(0)
    }

    private static func joined(_ folder: String, _ name: some StringProtocol) -> String {
        folder.isEmpty ? String(name) : folder + "/" + name
    }

    private static func localPath(_ path: String) -> LocalPath {
        LocalPath(string: path, components: components(path))
    }

    /// A `/`-joined path's components, split at every `/` (a `Character` may be `/` with a
    /// combining mark, so splitting `Character`s would miss some).
    private static func components(_ path: String) -> [String] {
        path.parts(separatedBy: UInt8(ascii: "/")).map(String.init)
    }
}
