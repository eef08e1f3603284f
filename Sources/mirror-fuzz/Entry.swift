import Foundation

#if MIRROR_LIBFUZZER
import CFuzzerDriver

/// The target libFuzzer runs, named by `MIRROR_FUZZ_TARGET` (`scripts/fuzz` sets it).
private let selected: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["MIRROR_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.named(name) else { fail("MIRROR_FUZZ_TARGET names no target: '\(name)'") }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// Answers `--list` and `--dictionary` as the replay build does; hands any other command line
/// to libFuzzer's driver (its options, corpus folders and files).
@main
enum Fuzz {
    static func main() {
        if TargetListing.answer(Array(CommandLine.arguments.dropFirst())) { return }
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) })
    }
}
#else
/// Without libFuzzer: lists the targets, or runs one target once over files (a corpus or a
/// reproducer), as `scripts/test` does with every corpus. Exits non-zero on a violation or crash.
@main
enum Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if TargetListing.answer(arguments) { return }
        switch arguments.first {
        case let name? where !name.hasPrefix("-"):
            guard let target = FuzzTargets.named(name) else { fail("no target named '\(name)' (mirror-fuzz --list)") }
            var count = 0
            for path in inputs(arguments.dropFirst()) {
                guard let bytes = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
                // Named before it runs: a crash's report ends with the input that caused it.
                FileHandle.standardError.write(Data("Running: \(path)\n".utf8))
                target.run(Array(bytes))
                count += 1
            }
            print("\(target.name): \(count) inputs, every contract held")
        default:
            fail("usage: mirror-fuzz --list [--verbose] | --dictionary TARGET | TARGET FILE_OR_FOLDER...")
        }
    }

    /// The files named, and those in the folders named, in a stable order.
    private static func inputs(_ paths: ArraySlice<String>) -> [String] {
        paths.flatMap { path -> [String] in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { return [path] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
        }
    }

}
#endif

/// What both builds answer about the targets: `--list [--verbose]` (names, and contracts) and
/// `--dictionary TARGET`.
enum TargetListing {
    /// Prints the answer and returns true when `arguments` ask one of these; false otherwise.
    static func answer(_ arguments: [String]) -> Bool {
        switch arguments.first {
        case "--list":
            for target in FuzzTargets.all {
                print(arguments.contains("--verbose") ? "\(target.name)\t\(target.contract)" : target.name)
            }
        case "--dictionary":
            guard arguments.count == 2, let target = FuzzTargets.named(arguments[1]) else { fail("--dictionary takes a target's name") }
            print(target.dictionary ?? "")
        default:
            return false
        }
        return true
    }
}

/// Stops with `message` on standard error and exit status 2 (a usage error, not a finding).
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mirror-fuzz: \(message)\n".utf8))
    exit(2)
}
