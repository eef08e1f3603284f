import Foundation
import MirrorCache
import MirrorCore
import MirrorHTTP
import MirrorTestSupport
import NIOHTTP1
import Testing

/// Sessions and credentials in the cache: `Set-Cookie` is handed to the caller and stored
/// nowhere; a response obtained with credentials is private to their fingerprint; the values of
/// credential fields are never in a key.
@Suite("Credentials in the cache", .serialized)
struct CredentialEntryTests {
    static let transport = AsyncHTTPClientTransport()
    let folder = TemporaryDirectory("credential-entries")

    /// Every byte of the cache folder, index and entry log included.
    func folderBytes() throws -> [UInt8] {
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return try files.flatMap { file -> [UInt8] in
            var isFolder: ObjCBool = false
            let isFile = FileManager.default.fileExists(atPath: folder.path + "/" + file, isDirectory: &isFolder) && !isFolder.boolValue
            return !isFile ? [] : Array(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + file)))
        }
    }

    @Test func setCookieReachesTheCallerButNeitherTheStoreNorALaterHit() async throws {
        try await TestOrigin.with { origin in
            let secret = "SESSION-\(UUID().uuidString)"
            origin.route("/page") { _ in
                .html(
                    "page", headers: [("Cache-Control", "max-age=3600"), ("Set-Cookie", "sid=\(secret); HttpOnly"), ("Set-Cookie", "b=2")])
            }
            let store = try CacheStore(directory: folder.path)
            let client = CachingClient(store: store, transport: Self.transport)
            let first = try await client.fetch(CacheRequest(url: origin.url("/page")))
            #expect(first.setCookies == ["sid=\(secret); HttpOnly", "b=2"])
            #expect(first.headers["set-cookie"].isEmpty)
            #expect(first.entry?.headers["set-cookie"].isEmpty == true)
            let hit = try await client.fetch(CacheRequest(url: origin.url("/page")))
            #expect(hit.outcome == .hit)
            #expect(hit.setCookies.isEmpty && hit.headers["set-cookie"].isEmpty, "a replay hands no visitor another's session")
            try store.synchronize()
            #expect(try folderBytes().firstRange(of: Array(secret.utf8)) == nil)
        }
    }

    /// Another request that joins a download in flight (single flight) is not given the session
    /// the origin handed to the request that caused it.
    @Test func aCollapsedRequestGetsNoSetCookie() async throws {
        try await TestOrigin.with { origin in
            origin.route("/slow") { _ in
                var response = TestResponse.html("slow", headers: [("Cache-Control", "max-age=60"), ("Set-Cookie", "visitor=1")])
                response.delay = .milliseconds(300)
                return response
            }
            let client = CachingClient(store: try CacheStore(directory: folder.path), transport: Self.transport)
            async let first = client.fetch(CacheRequest(url: origin.url("/slow")))
            try await Task.sleep(for: .milliseconds(50))
            async let second = client.fetch(CacheRequest(url: origin.url("/slow")))
            let answers = try await [first, second]
            #expect(origin.requests(path: "/slow").count == 1)
            #expect(answers.map(\.setCookies.count).sorted() == [0, 1])
        }
    }

    @Test func aResponseObtainedWithCredentialsAnswersOnlyTheSameCredentials() async throws {
        try await TestOrigin.with { origin in
            origin.route("/docs") { request in
                .html(request.header("authorization") == nil ? "public" : "private", headers: [("Cache-Control", "max-age=3600")])
            }
            let store = try CacheStore(directory: folder.path)
            let client = CachingClient(store: store, transport: Self.transport)
            let token = "Bearer TOKEN-\(UUID().uuidString)"
            let withToken = CacheRequest(url: origin.url("/docs"), headers: ["Authorization": token], credentials: "fingerprint-1")
            let first = try await client.fetch(withToken)
            #expect(first.outcome == .miss && first.entry?.isPrivate == true)
            #expect(try await client.fetch(withToken).outcome == .hit)
            let anonymous = try await client.fetch(CacheRequest(url: origin.url("/docs")))
            #expect(anonymous.outcome == .miss)
            #expect(String(decoding: try anonymous.body.collect(), as: UTF8.self) == "public")
            let someoneElse = try await client.fetch(
                CacheRequest(url: origin.url("/docs"), headers: ["Authorization": "Bearer other"], credentials: "fingerprint-2"))
            #expect(someoneElse.outcome == .miss)
            #expect(origin.requests(path: "/docs").count == 3)
            let entries = try store.entries(for: origin.url("/docs"))
            #expect(entries.count == 3 && entries.filter(\.isPrivate).count == 2)
            #expect(entries.allSatisfy { $0.shareableVaryKey.isEmpty })
            try store.synchronize()
            #expect(try folderBytes().firstRange(of: Array(token.utf8)) == nil)
        }
    }

    /// `Vary: Cookie` keys the variants on a digest of the cookies, never on their values, and a
    /// key that leaves the cache holds neither.
    @Test func aVaryKeyHoldsADigestOfCredentialFields() {
        let response: HTTPHeaders = ["Vary": "Cookie, Accept-Language"]
        let key = CachePolicy.varyKey(
            responseHeaders: response, request: ["Cookie": "sid=SECRET", "Accept-Language": "de"],
            credentials: "abc")
        #expect(key?.contains("SECRET") == false)
        #expect(key?.contains("accept-language=de") == true)
        #expect(
            key
                != CachePolicy.varyKey(
                    responseHeaders: response, request: ["Cookie": "sid=OTHER", "Accept-Language": "de"],
                    credentials: "abc"))
        #expect(CachePolicy.shareable(varyKey: key ?? "") == "accept-language=de")
        let absent = CachePolicy.varyKey(responseHeaders: response, request: [:])
        #expect(absent == "accept-language\ncookie")
        #expect(CachePolicy.shareable(varyKey: absent ?? "") == absent)
    }

    /// Lines by bytes: a value ending in CR made one `Character` with the line feed after it, and
    /// the credential's line behind it stayed in the shareable key.
    @Test func aValueEndingInCarriageReturnHidesNoCredentialLine() throws {
        let key = try #require(
            CachePolicy.varyKey(
                responseHeaders: ["Vary": "Accept, Authorization"], request: ["Accept": "x\r", "Authorization": "Basic SECRET"],
                credentials: "abc"))
        let shareable = CachePolicy.shareable(varyKey: key)
        #expect(!shareable.contains("authorization=#") && !shareable.contains("@private="))
        #expect(Array(shareable.utf8) == Array("accept=x\r".utf8))
    }
}
