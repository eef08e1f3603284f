// Measures the cache store; scripts/bench-cache.sh runs each phase in its own process
// so that each reports its own peak memory.
//
//     mirror-cache-bench store DIR COUNT SIZE   store COUNT bodies of SIZE bytes
//     mirror-cache-bench fill DIR COUNT         index COUNT small entries
//     mirror-cache-bench open DIR               open the cache and answer one lookup
//     mirror-cache-bench hits DIR COUNT SECONDS look up random entries and read their bodies,
//                                               cold (first read of each) and warm
import Foundation
import MirrorCache
import MirrorCore
import NIOHTTP1

func peakMemoryKB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

func report(_ fields: [String: Any]) {
    var all = fields
    all["peakRSSMB"] = Double(peakMemoryKB()) / 1024
    let data = try! JSONSerialization.data(withJSONObject: all, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func store(_ cache: CacheStore, url: String, body: [UInt8]) throws {
    let writer = try cache.makeBodyWriter()
    try writer.write(body)
    let head = CachedResponseHead(
        status: 200,
        headers: [
            "Content-Type": "text/html", "Cache-Control": "max-age=86400",
            "ETag": "\"\(url.hashValue)\"",
        ],
        requestTime: 1000, responseTime: 1000)
    try cache.store(url: url, request: [:], head: head, body: writer)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: mirror-cache-bench store|fill|open|hits DIR …\n".utf8))
    exit(2)
}
let directory = arguments[2]
let clock = ContinuousClock()
var configuration = CacheStore.Configuration()
configuration.diskCapacity = 64 << 30

switch arguments[1] {
case "store":
    let count = Int(arguments[3])!
    let size = Int(arguments[4])!
    let cache = try CacheStore(directory: directory, configuration: configuration)
    // One random body, made distinct per entry by its first eight bytes (so every body is stored).
    var generator = SystemRandomNumberGenerator()
    var body = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let elapsed = try clock.measure {
        for index in 0..<count {
            withUnsafeBytes(of: index) { body.replaceSubrange(0..<8, with: $0) }
            try store(cache, url: "http://bench.test/store/\(index)", body: body)
        }
        try cache.synchronize()
    }
    let time = elapsed.seconds
    report([
        "phase": "store", "entries": count, "bodyBytes": size, "seconds": time,
        "entriesPerSecond": Double(count) / time, "megabytesPerSecond": Double(count * size) / time / 1e6,
    ])
case "fill":
    let count = Int(arguments[3])!
    let cache = try CacheStore(directory: directory, configuration: configuration)
    let elapsed = try clock.measure {
        for index in 0..<count {
            try store(cache, url: "http://bench.test/page/\(index)", body: Array("<html>page \(index)</html>".utf8))
        }
        try cache.synchronize()
    }
    report(["phase": "fill", "entries": count, "seconds": elapsed.seconds])
case "open":
    var found = false
    let elapsed = try clock.measure {
        let cache = try CacheStore(directory: directory, configuration: configuration)
        found = try cache.entry(for: "http://bench.test/page/1", request: [:]) != nil
    }
    report(["phase": "open", "milliseconds": elapsed.seconds * 1000, "found": found])
case "hits":
    // Cold: each lookup reads its body from disk (first use). Warm: every body was read once,
    // so small ones come from the memory tier.
    let count = Int(arguments[3])!
    let duration = Double(arguments[4])!
    let cache = try CacheStore(directory: directory, configuration: configuration)
    var generator = SystemRandomNumberGenerator()
    var order = Array(0..<count)
    order.shuffle(using: &generator)
    func measure(_ label: String, _ keys: [Int]) throws {
        var latencies: [Double] = []
        latencies.reserveCapacity(keys.count)
        let deadline = clock.now + .milliseconds(Int(duration * 1000))
        let started = clock.now
        for key in keys {
            let begin = clock.now
            guard let entry = try cache.entry(for: "http://bench.test/page/\(key)", request: [:]),
                let body = cache.body(of: entry), try body.collect().count == entry.size
            else {
                fatalError("miss on \(key)")
            }
            latencies.append((clock.now - begin).seconds)
            if clock.now > deadline { break }
        }
        let elapsed = (clock.now - started).seconds
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] * 1e6 }
        report([
            "phase": "hits-\(label)", "lookups": latencies.count, "hitsPerSecond": Double(latencies.count) / elapsed,
            "p50Microseconds": percentile(0.5), "p99Microseconds": percentile(0.99),
        ])
    }
    try measure("cold", order)
    for key in order { _ = try cache.entry(for: "http://bench.test/page/\(key)", request: [:]).flatMap { cache.body(of: $0) } }
    try measure("warm", (0..<count).map { _ in Int.random(in: 0..<count, using: &generator) })
default:
    FileHandle.standardError.write(Data("unknown phase \(arguments[1])\n".utf8))
    exit(2)
}
