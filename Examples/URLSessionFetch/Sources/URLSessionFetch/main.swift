import Foundation
import MirrorCache
import MirrorURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Usage: URLSessionFetch URL CACHE_DIR [replay]. Fetches URL with URLSession through a mirror
// cache folder and prints the body: recording (RFC 9111, validated when stale), or, with
// `replay`, from the folder alone, offline; a URL never recorded is then an error.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 || arguments.count == 3 && arguments[2] == "replay", let url = URL(string: arguments[0]) else {
    FileHandle.standardError.write(Data("usage: URLSessionFetch URL CACHE_DIR [replay]\n".utf8))
    exit(2)
}
let cache = try MirrorURLCache(folder: arguments[1], mode: arguments.count == 3 ? .replay : .record)
let configuration = URLSessionConfiguration.default
cache.install(in: configuration)  // the one line: every request of the session goes through the cache
let session = URLSession(configuration: configuration)
do {
    let (body, _) = try await session.data(from: url)
    FileHandle.standardOutput.write(body)
} catch let error as URLError where error.code == .resourceUnavailable {
    FileHandle.standardError.write(Data("URLSessionFetch: \(url) is not in \(arguments[1])\n".utf8))
    exit(1)
}
try await cache.close()
