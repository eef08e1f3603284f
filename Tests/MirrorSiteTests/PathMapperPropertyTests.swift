import MirrorTestSupport
import Foundation
import MirrorCore
import MirrorSite
import Testing

@Suite("URL → local path, properties over random and hostile URLs")
struct PathMapperPropertyTests {
    static let reservedNames: Set<String> = Set(["con", "prn", "aux", "nul", "conin$", "conout$"]
        + (0...9).flatMap { ["com\($0)", "lpt\($0)"] })

    /// Why `component` is not a safe name on Linux, macOS and Windows, or nil.
    static func problem(with component: String, maxBytes: Int) -> String? {
        if component.isEmpty || component == "." || component == ".." { return "empty or dot component" }
        if component.utf8.count > maxBytes { return "longer than \(maxBytes) bytes" }
        if component.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || "<>:\"/\\|?*".unicodeScalars.contains($0) }) {
            return "forbidden character"
        }
        if component.hasSuffix(".") || component.hasSuffix(" ") { return "trailing dot or space" }
        var base = String(component.prefix { $0 != "." })
        while base.hasSuffix(" ") { base.removeLast() }
        if reservedNames.contains(base.lowercased()) { return "Windows device name" }
        return nil
    }

    /// Resolves `path` under `/out` the way a file system would (`\` too, as on Windows).
    static func staysInside(_ path: LocalPath) -> Bool {
        var stack: [Substring] = []
        for part in path.string.split(whereSeparator: { $0 == "/" || $0 == "\\" }) {
            if part == ".." {
                if stack.isEmpty { return false }
                stack.removeLast()
            } else if part != "." {
                stack.append(part)
            }
        }
        return !path.string.hasPrefix("/") && !stack.isEmpty
    }

    /// What the path stands for: the normalized URL without its scheme (http and https share files).
    static func identity(_ url: String) -> String? {
        URLNormalizer.normalize(url).map { String($0.drop { $0 != ":" }) }
    }

    func mapAll(count: Int, seed: UInt64, mapper: PathMapper, type: (inout HostileURLs) -> String?) -> [(String, String, LocalPath)] {
        var urls = HostileURLs(generator: SeededGenerator(seed: seed))
        var result: [(String, String, LocalPath)] = []
        var seen: Set<String> = []
        for _ in 0..<count {
            let url = urls.url()
            guard let identity = Self.identity(url) else { continue }
            guard let path = mapper.path(for: url, contentType: type(&urls)) else {
                Issue.record("no path for \(url)")
                continue
            }
            if seen.insert(identity).inserted { result.append((url, identity, path)) }
        }
        return result
    }

    @Test(arguments: [(UInt64(1), 200), (2, 200), (3, 40)])
    func everyComponentIsSafeAndStaysInside(seed: UInt64, maxBytes: Int) {
        let mapper = PathMapper(maxSegmentBytes: maxBytes)
        let mapped = mapAll(count: 10_000, seed: seed, mapper: mapper) { $0.pick(HostileURLs.contentTypes) }
        #expect(mapped.count > 7_000)
        for (url, _, path) in mapped {
            #expect(path.components.count >= 2, "\(url)")
            for component in path.components {
                if let problem = Self.problem(with: component, maxBytes: maxBytes) {
                    Issue.record("\(url) → \(path): \(problem) in \(component.debugDescription)")
                }
            }
            #expect(Self.staysInside(path), "\(url) → \(path)")
        }
    }

    /// Distinct URLs never share a file, even on a case- or normalization-insensitive disk
    /// (`String` equality is canonical equivalence), and no file sits where another URL needs a folder.
    @Test(arguments: [UInt64(11), 12, 13])
    func distinctURLsNeverCollide(seed: UInt64) {
        let mapper = PathMapper()
        let typeChoices: [(String, (inout HostileURLs) -> String?)] = [
            ("random per URL", { $0.pick(HostileURLs.contentTypes) }),
            ("all HTML", { _ in "text/html" }),
            ("all unknown", { _ in nil }),
        ]
        for (label, type) in typeChoices {
            let mapped = mapAll(count: 8_000, seed: seed, mapper: mapper, type: type)
            for fold in [{ (s: String) in s.lowercased() }, { (s: String) in s.uppercased() }] {
                var owners: [String: String] = [:]
                for (url, identity, path) in mapped {
                    let key = fold(path.string)
                    if let owner = owners[key], owner != identity {
                        Issue.record("\(label): \(url) and \(owner) both map to \(path)")
                    }
                    owners[key] = identity
                }
                let files = Set(mapped.map { fold($0.2.string) })
                for (url, _, path) in mapped {
                    for end in 1..<path.components.count {
                        let folder = fold(path.components[..<end].joined(separator: "/"))
                        if files.contains(folder) { Issue.record("\(label): \(url) needs folder \(folder), a file") }
                    }
                }
            }
        }
    }

    @Test func equivalentURLsShareAPath() {
        var urls = HostileURLs(generator: SeededGenerator(seed: 21))
        let mapper = PathMapper()
        for _ in 0..<5_000 {
            let url = urls.url()
            let type = urls.pick(HostileURLs.contentTypes)
            // URLParts splits at characters, not scalars, so a combining mark after `/` or `:`
            // can make a normalized URL that does not parse again; such URLs are skipped here.
            guard let normalized = URLNormalizer.normalize(url), URLParts(normalized) != nil else { continue }
            let path = mapper.path(for: url, contentType: type)
            #expect(path == mapper.path(for: normalized, contentType: type), "\(url) vs \(normalized)")
            #expect(path == mapper.path(for: normalized + "#fragment", contentType: type), "\(url)")
            #expect(path == mapper.path(for: url, contentType: type), "\(url) is not deterministic")
        }
    }

    /// Writes every mapped file into a real folder: nothing fails, nothing lands outside,
    /// and there are as many files as URLs (nothing overwritten).
    @Test func writingEveryFileKeepsThemAll() throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("mirror-site-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        defer { try? FileManager.default.removeItem(at: root) }
        let mapped = mapAll(count: 4_000, seed: 31, mapper: PathMapper()) { $0.pick(HostileURLs.contentTypes) }
        for (_, identity, path) in mapped {
            let file = root.appendingPathComponent(path.string)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(!FileManager.default.fileExists(atPath: file.path), "\(path) written twice")
            try Data(identity.utf8).write(to: file)
        }
        let rootPath = root.resolvingSymlinksInPath().path + "/"
        var files = 0
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files += 1
            #expect(url.resolvingSymlinksInPath().path.hasPrefix(rootPath))
        }
        #expect(files == mapped.count)
    }
}
