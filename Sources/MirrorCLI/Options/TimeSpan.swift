import ArgumentParser

/// A duration on the command line: seconds, or a number with a unit `ms`, `s`, `m`, `h`, `d`:
/// `30s`, `5m`, `2h`, `0.5`.
struct TimeSpan: ExpressibleByArgument, Sendable {
    let seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let number = text.prefix { $0.isNumber || $0 == "." }
        let units = ["": 1, "ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let value = Double(number), value >= 0, let unit = units[text.dropFirst(number.count).lowercased()] else { return nil }
        seconds = value * unit
    }

    var duration: Duration { .milliseconds(Int64((seconds * 1000).rounded())) }

    var defaultValueDescription: String { "\(seconds)s" }
}
