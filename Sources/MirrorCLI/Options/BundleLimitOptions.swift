import ArgumentParser
import MirrorBundle

/// Limits for reading a bundle: generous for real sites, and raisable for the exceptions.
struct BundleLimitOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Refuse a bundle holding a file larger than this (bytes, or 500M, 8G).", valueName: "SIZE"))
    var maxEntrySize = ByteSize(bytes: TarLimits().maxEntrySize)
    @Option(help: ArgumentHelp("Refuse a bundle whose files add up to more than this (bytes, or 100G).", valueName: "SIZE"))
    var maxTotalSize = ByteSize(bytes: TarLimits().maxTotalSize)
    @Option(help: ArgumentHelp("Refuse a bundle with more entries than this.", valueName: "N"))
    var maxEntries: Int = TarLimits().maxEntryCount

    var unpacker: BundleUnpacker {
        var limits = TarLimits()
        limits.maxEntrySize = maxEntrySize.bytes
        limits.maxTotalSize = maxTotalSize.bytes
        limits.maxEntryCount = maxEntries
        return BundleUnpacker(limits: limits)
    }
}
