import ArgumentParser
import MirrorArchive
import MirrorBundle
import MirrorCache

/// `mirror unpack`: safely extract a bundle, optionally reloading its responses into a cache.
struct UnpackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpack",
        abstract: "Extract a bundle into a folder, refusing anything unsafe.",
        discussion: """
            Every file is checked against the manifest's digest. Absolute paths, `..`, links, \
            devices, duplicate names and files over the limits are refused, naming the entry; \
            a refused bundle leaves nothing behind (it is extracted into a temporary folder \
            that is renamed at the end).

            Examples:
              mirror unpack docs.tar.gz -o docs
              mirror unpack docs.tar.gz -o docs --into-cache ~/.cache/mirror
              mirror unpack --check docs.tar.gz
            """
    )

    @Argument(help: ArgumentHelp("The bundle.", valueName: "FILE.tar.gz")) var bundle: String
    @Option(name: [.short, .long], help: ArgumentHelp("The folder to create.", valueName: "DIR")) var output: String?
    @Option(help: ArgumentHelp("Also load the bundle's responses into this cache.", valueName: "DIR")) var intoCache: String?
    @Flag(help: "Only verify every digest against the manifest; write nothing.") var check = false
    @OptionGroup var limits: BundleLimitOptions
    @Flag(name: [.short, .long], help: "Print nothing but errors.") var quiet = false

    func validate() throws {
        if check && (output != nil || intoCache != nil) { throw ValidationError("--check writes nothing: drop -o and --into-cache") }
        if !check && output == nil { throw ValidationError("say where to unpack with -o DIR (or use --check)") }
    }

    func run() async throws {
        let unpacker = limits.unpacker
        do {
            guard let output else {
                let summary = try unpacker.check(bundle)
                if !quiet { Output.line("\(bundle): ok, \(summary.files) files (\(Output.bytes(summary.bytes))) match the manifest") }
                return
            }
            let summary = try unpacker.unpack(bundle, to: output)
            if !quiet { Output.line("unpacked \(summary.files) files (\(Output.bytes(summary.bytes))) into \(output)") }
            if let intoCache {
                let store = try CacheCommand.open(intoCache)
                let count = try BundleImporter(store: store).importFolder(output, manifest: summary.manifest)
                if !quiet { Output.line("imported \(count) responses into \(intoCache)") }
            }
        } catch let error as BundleError {
            throw CommandFailure(error)
        } catch let error as CacheError {
            throw CommandFailure("\(error)", status: ExitStatus(error))
        }
    }
}
