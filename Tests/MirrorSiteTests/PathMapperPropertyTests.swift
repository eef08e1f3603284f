import Foundation
import MirrorCore
import MirrorSite
import MirrorTestSupport
import Testing

@Suite("URL → local path through PathMapper and PathRegistry, properties over random and hostile URLs")
struct PathMapperPropertyTests {
    static let reservedNames: Set<String> = Set(
        ["con", "prn", "aux", "nul", "conin$", "conout$"]
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

    /// One distinct URL as a crawl saves it: mapped, then given its path by the registry.
    struct Saved {
        let url: String
        /// The normalized URL without its scheme.
        let identity: String
        let preferred: LocalPath
        let sha256: String
        let path: LocalPath
    }

    /// Maps and registers `count` random URLs (each distinct one once) in one registry. Bodies
    /// differ, except that URLs preferring one path get one body half the time, so some share.
    func saveAll(
        count: Int, seed: UInt64, maxBytes: Int = 200, type: (inout HostileURLs) -> String?
    ) -> (saved: [Saved], registry: PathRegistry) {
        let mapper = PathMapper(maxSegmentBytes: maxBytes)
        var registry = PathRegistry(maxSegmentBytes: maxBytes)
        var urls = HostileURLs(generator: SeededGenerator(seed: seed))
        var saved: [Saved] = []
        var seen: Set<String> = []
        for _ in 0..<count {
            let url = urls.url()
            guard let normalized = URLNormalizer.normalize(url), let identity = Self.identity(url) else { continue }
            guard let preferred = mapper.path(for: url, contentType: type(&urls)) else {
                Issue.record("no path for \(url)")
                continue
            }
            guard seen.insert(normalized).inserted else { continue }
            let sha256 = urls.chance(50) ? "same " + preferred.string : "own " + normalized
            let path = registry.assign(url: normalized, preferred: preferred, sha256: sha256)
            saved.append(Saved(url: normalized, identity: identity, preferred: preferred, sha256: sha256, path: path))
        }
        return (saved, registry)
    }

    @Test(arguments: [(UInt64(1), 200), (2, 200), (3, 40)])
    func everyComponentIsSafeAndStaysInside(seed: UInt64, maxBytes: Int) async throws {
        try await offPool {
            let (saved, _) = saveAll(count: 10_000, seed: seed, maxBytes: maxBytes) { $0.pick(HostileURLs.contentTypes) }
            #expect(saved.count > 7_000)
            for file in saved {
                for path in [file.preferred, file.path] {
                    #expect(path.components.count >= 2, "\(file.url)")
                    for component in path.components {
                        if let problem = Self.problem(with: component, maxBytes: maxBytes) {
                            Issue.record("\(file.url) → \(path): \(problem) in \(component.debugDescription)")
                        }
                    }
                    #expect(Self.staysInside(path), "\(file.url) → \(path)")
                }
            }
        }
    }

    /// Distinct URLs share a file only when they prefer the same path and bring the same body
    /// (and then always do); no two paths are equal on a case- or normalization-insensitive
    /// disk (`String` equality is canonical equivalence), and no file sits where a folder is needed.
    @Test(arguments: [UInt64(11), 12, 13])
    func registeredURLsNeverCollide(seed: UInt64) async throws {
        try await offPool {
            let typeChoices: [(String, (inout HostileURLs) -> String?)] = [
                ("random per URL", { $0.pick(HostileURLs.contentTypes) }),
                ("all HTML", { _ in "text/html" }),
                ("all unknown", { _ in nil }),
            ]
            for (label, type) in typeChoices {
                let (saved, _) = saveAll(count: 8_000, seed: seed, type: type)
                var holders: [[Unicode.Scalar]: Saved] = [:]
                var fileOfBody: [String: [Unicode.Scalar]] = [:]
                var shared = 0
                for file in saved {
                    let exact = Array(file.path.string.unicodeScalars)
                    if let holder = holders[exact] {
                        shared += 1
                        if holder.preferred != file.preferred || holder.sha256 != file.sha256 {
                            Issue.record("\(label): \(file.url) and \(holder.url) both have \(file.path)")
                        }
                    }
                    holders[exact] = holders[exact] ?? file
                    let body = file.preferred.string + "\u{0}" + file.sha256
                    if let other = fileOfBody[body], other != exact {
                        Issue.record("\(label): \(file.url) has the body of a URL preferring \(file.preferred) but not its file")
                    }
                    fileOfBody[body] = fileOfBody[body] ?? exact
                }
                #expect(shared > 0, "\(label): no URL shared a file: the sharing rule was not exercised")
                let folds: [(String) -> String] = [
                    { $0.lowercased() }, { $0.uppercased() }, { $0.precomposedStringWithCompatibilityMapping.lowercased() },
                ]
                for fold in folds {
                    var owners: [String: [Unicode.Scalar]] = [:]
                    for file in saved {
                        let key = fold(file.path.string)
                        let exact = Array(file.path.string.unicodeScalars)
                        if let owner = owners[key], owner != exact {
                            Issue.record("\(label): \(file.path) and \(String(String.UnicodeScalarView(owner))) are one file once folded")
                        }
                        owners[key] = exact
                    }
                    for file in saved {
                        for end in 1..<file.path.components.count {
                            let folder = file.path.components[..<end].joined(separator: "/")
                            if owners[fold(folder)] != nil { Issue.record("\(label): \(file.url) needs folder \(folder), a file") }
                        }
                    }
                }
            }
        }
    }

    /// A registry rebuilt from its assignments (in any order) holds the same, and gives every
    /// URL its path again whatever order the URLs come back in.
    @Test func aRebuiltRegistryKeepsEveryPath() async throws {
        try await offPool {
            let (saved, registry) = saveAll(count: 6_000, seed: 41) { $0.pick(HostileURLs.contentTypes) }
            var generator = SeededGenerator(seed: 42)
            var rebuilt = PathRegistry(assignments: registry.assignments.shuffled(using: &generator))
            #expect(rebuilt.assignments == registry.assignments)
            for file in saved.shuffled(using: &generator) {
                #expect(rebuilt.assign(url: file.url, preferred: file.preferred, sha256: file.sha256) == file.path, "\(file.url)")
            }
        }
    }

    @Test func equivalentURLsShareAPath() async throws {
        try await offPool {
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
    }

    /// Writes every registered file into a real folder: nothing fails, nothing lands outside,
    /// and there are as many files as distinct paths (nothing overwritten).
    @Test func writingEveryFileKeepsThemAll() async throws {
        try await offPool {
            let root = FileManager.default.temporaryDirectory
                .appendingPathComponent("mirror-site-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
            defer { try? FileManager.default.removeItem(at: root) }
            let (saved, _) = saveAll(count: 4_000, seed: 31) { $0.pick(HostileURLs.contentTypes) }
            var written: Set<[Unicode.Scalar]> = []
            for file in saved where written.insert(Array(file.path.string.unicodeScalars)).inserted {
                let url = root.appendingPathComponent(file.path.string)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                #expect(!FileManager.default.fileExists(atPath: url.path), "\(file.path) written twice")
                try Data(file.identity.utf8).write(to: url)
            }
            let rootPath = root.resolvingSymlinksInPath().path + "/"
            var files = 0
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
            while let url = enumerator?.nextObject() as? URL {
                guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
                files += 1
                #expect(url.resolvingSymlinksInPath().path.hasPrefix(rootPath))
            }
            #expect(files == written.count)
            #expect(written.count < saved.count, "no URL shared a file")
        }
    }
}
