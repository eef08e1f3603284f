// Measures reading a bundle in place (BundleArchive), as `mirror serve FILE.tar.gz` does:
//
//     mirror-archive-bench BUNDLE [SECONDS] [CACHE-BYTES]
//
// opens the bundle (time, memory), reads every file outside .mirror/ once in a shuffled order
// (cold: each read inflates), then reads files picked uniformly at random for SECONDS (warm:
// the LRU of CACHE-BYTES, default 16 MiB, holds what fits). Costs are this thread's CPU time,
// which other work on a shared machine disturbs less than wall time. Prints one JSON object.
import Foundation
import MirrorBundle

/// A field of /proc/self/status in MiB (VmRSS: now, VmHWM: peak).
func memoryMiB(_ field: String) -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? -1) / 1024
}

/// CPU time this thread has used, in microseconds.
func cpuMicroseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
}

/// Reads all of `path`; returns its size and the CPU microseconds it took.
func readAll(_ archive: BundleArchive, _ path: String) throws -> (bytes: Int, cpu: Double) {
    let start = cpuMicroseconds()
    var count = 0
    try archive.read(path) { count += $0.count }
    return (count, cpuMicroseconds() - start)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: mirror-archive-bench BUNDLE [SECONDS] [CACHE-BYTES]\n".utf8))
    exit(2)
}
let seconds = arguments.count > 2 ? Double(arguments[2])! : 5
let cacheCapacity = arguments.count > 3 ? Int(arguments[3])! : 16 << 20
let rssBeforeOpen = memoryMiB("VmRSS")
let openStart = cpuMicroseconds()
let archive = try BundleArchive(path: arguments[1], cacheCapacity: cacheCapacity)
let openCPU = cpuMicroseconds() - openStart
let rssAfterOpen = memoryMiB("VmRSS")
let paths = archive.files.keys.filter { !$0.hasPrefix(".mirror/") }.shuffled()

var cold: [Double] = []
var bytes = 0
for path in paths {
    let read = try readAll(archive, path)
    bytes += read.bytes
    cold.append(read.cpu)
}
cold.sort()

var warmReads = 0
var warmCPU = 0.0
let deadline = ContinuousClock.now + .seconds(seconds)
while ContinuousClock.now < deadline {
    warmCPU += try readAll(archive, paths.randomElement()!).cpu
    warmReads += 1
}

let results: [String: Any] = [
    "files": paths.count,
    "bytes": bytes,
    "gzipMembers": archive.accessPoints.count(where: \.startsMember),
    "accessPointsInsideMembers": archive.accessPoints.count(where: { !$0.startsMember }),
    "windowBytes": archive.accessPoints.reduce(0) { $0 + $1.window.count },
    "openCPUSeconds": openCPU / 1e6,
    "rssBeforeOpenMiB": rssBeforeOpen,
    "rssAfterOpenMiB": rssAfterOpen,
    "coldReadMeanMicroseconds": cold.reduce(0, +) / Double(cold.count),
    "coldReadMedianMicroseconds": cold[cold.count / 2],
    "coldReadP99Microseconds": cold[cold.count * 99 / 100],
    "coldMBPerCPUSecond": Double(bytes) / cold.reduce(0, +),
    "warmReadMeanMicroseconds": warmCPU / Double(warmReads),
    "warmReadsPerCPUSecond": Double(warmReads) / (warmCPU / 1e6),
    "cacheCapacity": cacheCapacity,
    "peakRSSMiB": memoryMiB("VmHWM"),
]
let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
print(String(decoding: data, as: UTF8.self))
