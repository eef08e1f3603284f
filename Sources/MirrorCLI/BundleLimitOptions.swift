import ArgumentParser
import MirrorBundle

/// Limits for reading a bundle: generous for real sites, and raisable for the exceptions.
struct BundleLimitOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Refuse a bundle holding a file larger than this.", valueName: "BYTES"))
    var maxEntrySize: Int64 = TarLimits().maxEntrySize
    @Option(help: ArgumentHelp("Refuse a bundle whose files add up to more than this.", valueName: "BYTES"))
    var maxTotalSize: Int64 = TarLimits().maxTotalSize
    @Option(help: ArgumentHelp("Refuse a bundle with more entries than this.", valueName: "N"))
    var maxEntries: Int = TarLimits().maxEntryCount

    var unpacker: BundleUnpacker {
        var limits = TarLimits()
        limits.maxEntrySize = maxEntrySize
        limits.maxTotalSize = maxTotalSize
        limits.maxEntryCount = maxEntries
        return BundleUnpacker(limits: limits)
    }
}
