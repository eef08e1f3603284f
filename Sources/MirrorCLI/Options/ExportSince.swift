import ArgumentParser
import MirrorArchive

/// `--since`: a date, or an age counted back from now.
struct ExportSince: ExpressibleByArgument {
    private let date: WARCDate?
    private let age: TimeSpan?

    init?(argument: String) {
        date = WARCDate(argument)
        age = date == nil ? TimeSpan(argument: argument) : nil
        if date == nil && age == nil { return nil }
    }

    /// The time it names, in seconds since 1970, counting an age back from `now`.
    func seconds(before now: Double) -> Double {
        date?.seconds ?? now - (age?.seconds ?? 0)
    }
}
