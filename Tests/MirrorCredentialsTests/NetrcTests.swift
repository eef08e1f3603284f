import Foundation
import MirrorCredentials
import Testing

@Suite(".netrc")
struct NetrcTests {
    static let sample = #"""
        # logins of the sites we mirror
        machine example.com login alice password "p@ss word \"quoted\"\\"
        machine Example.ORG
            login bob
            password s3cr#t
            account dept
        macdef init
        cd /pub
        machine inside.macro login mallory password evil

        machine files.example.com login carol password "tab\there"
        machine files.example.com login dave password d4
        default login anonymous password guest@example.com
        """#

    @Test func machinesAndDefault() throws {
        let netrc = try Netrc(Self.sample, path: "/home/u/.netrc")
        #expect(netrc.credentials(host: "example.com")! == ("alice", #"p@ss word "quoted"\"#))
        #expect(netrc.credentials(host: "example.org")! == ("bob", "s3cr#t"))
        #expect(netrc.credentials(host: "files.example.com")! == ("carol", "tab\there"))
        #expect(netrc.credentials(host: "elsewhere.net")! == ("anonymous", "guest@example.com"))
    }

    @Test func macroBodiesAreSkipped() throws {
        let netrc = try Netrc(Self.sample, path: "/home/u/.netrc")
        #expect(netrc.credentials(host: "inside.macro")! == ("anonymous", "guest@example.com"))
    }

    @Test func aGivenLoginPicksItsEntry() throws {
        let netrc = try Netrc(Self.sample, path: "/home/u/.netrc")
        #expect(netrc.credentials(host: "files.example.com", login: "dave")! == ("dave", "d4"))
        #expect(netrc.credentials(host: "files.example.com", login: "erin") == nil)
    }

    @Test func withoutDefaultUnknownHostsGetNothing() throws {
        let netrc = try Netrc("machine a.example login x password y", path: "n")
        #expect(netrc.credentials(host: "b.example") == nil)
        #expect(netrc.credentials(host: "A.Example")! == ("x", "y"))
    }

    @Test func errorsNameTheLineButNeverThePassword() throws {
        let samples: [(text: String, line: Int)] = [
            ("machine a\nlogin x\npassword", 3),
            ("machine a\nlogin x password \"TOPSECRET", 2),
            ("machine a login x\npassword TOP SECRET", 2),
            ("login x password TOPSECRET\nmachine a", 1),
        ]
        for sample in samples {
            let error = try #require(throws: CredentialFileError.self) { try Netrc(sample.text, path: "/home/u/.netrc") }
            #expect(error.line == sample.line, "\(error)")
            #expect(error.description.hasPrefix("/home/u/.netrc:\(sample.line): "))
            #expect(!error.description.contains("SECRET"))
        }
    }

    @Test func descriptionLeavesPasswordsOut() throws {
        let netrc = try Netrc(Self.sample, path: "/home/u/.netrc")
        #expect(String(describing: netrc).contains("example.com"))
        #expect(!String(describing: netrc).contains("s3cr"))
    }

    @Test func loadsAFile() throws {
        let folder = try CookieFileTests.makeTemporaryFolder("netrc")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/netrc"
        try "machine h.example login u password p\n".write(toFile: path, atomically: false, encoding: .utf8)
        let netrc = try #require(try Netrc.load(path: path))
        #expect(netrc.credentials(host: "h.example")! == ("u", "p"))
        #expect(try Netrc.load(path: folder + "/missing") == nil)
    }

    @Test func defaultPathIsNETRCElseHOME() {
        #expect(Netrc.defaultPath(environment: ["NETRC": "/etc/mirror.netrc", "HOME": "/home/u"]) == "/etc/mirror.netrc")
        #expect(Netrc.defaultPath(environment: ["NETRC": "", "HOME": "/home/u"]) == "/home/u/.netrc")
        #expect(Netrc.defaultPath(environment: [:]).hasSuffix("/.netrc"))
    }
}
