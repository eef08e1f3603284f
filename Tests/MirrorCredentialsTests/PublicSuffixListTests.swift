import MirrorCredentials
import Testing

@Suite("Public suffix list")
struct PublicSuffixListTests {
    /// One rule of each kind, with comments, blank lines and trailing words the format allows.
    static let sample = PublicSuffixList(
        """
        // ===BEGIN ICANN DOMAINS===
        com
        uk
        co.uk   the rest of a line is ignored

        *.ck
        !www.ck
        cn
        公司.cn
        bücher.de
        // ===END ICANN DOMAINS===
        // ===BEGIN PRIVATE DOMAINS===
        github.io
        """)

    @Test func plainRules() {
        #expect(Self.sample.isPublicSuffix("com"))
        #expect(Self.sample.isPublicSuffix("co.uk"))
        #expect(!Self.sample.isPublicSuffix("example.co.uk"))
        #expect(!Self.sample.isPublicSuffix("example.com"))
        #expect(Self.sample.isPublicSuffix("co.uk."))
        #expect(!Self.sample.isPublicSuffix("example.co.uk."))
        #expect(Self.sample.isPublicSuffix("github.io"))
        #expect(!Self.sample.isPublicSuffix("me.github.io"))
    }

    @Test func singleLabelsArePublicByTheImplicitRule() {
        #expect(Self.sample.isPublicSuffix("localhost"))
        #expect(Self.sample.isPublicSuffix("example"))
        #expect(!Self.sample.isPublicSuffix(""))
    }

    @Test func wildcardsAndExceptions() {
        #expect(Self.sample.isPublicSuffix("foo.ck"))
        #expect(!Self.sample.isPublicSuffix("www.ck"))
        #expect(!Self.sample.isPublicSuffix("a.www.ck"))
        #expect(!Self.sample.isPublicSuffix("a.foo.ck"))
    }

    @Test func internationalizedRulesMatchInBothForms() {
        #expect(Self.sample.isPublicSuffix("公司.cn"))
        #expect(Self.sample.isPublicSuffix("xn--55qx5d.cn"))
        #expect(!Self.sample.isPublicSuffix("example.xn--55qx5d.cn"))
        #expect(Self.sample.isPublicSuffix("xn--bcher-kva.de"))
    }

    /// The list and the domain are read by bytes: `!` or a trailing `.` with a mark beside it
    /// made one `Character` with it, and the rule or the dot was missed.
    @Test func rulesAndTrailingDotsAreReadByBytes() {
        let list = PublicSuffixList("*.ck\n!\u{301}www.ck\n")
        #expect(!list.isPublicSuffix("\u{301}www.ck"))
        #expect(list.isPublicSuffix("x.ck"))
        #expect(Self.sample.isPublicSuffix("com\u{600}."))
        #expect(!Self.sample.isPublicSuffix("example.com\u{600}."))
    }

    @Test func systemList() throws {
        let list = try #require(PublicSuffixList.system())
        for suffix in ["com", "co.uk", "github.io", "xn--55qx5d.cn", "foo.ck", "s3.amazonaws.com"] {
            #expect(list.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.co.uk", "example.com", "me.github.io", "www.ck", "city.kawasaki.jp"] {
            #expect(!list.isPublicSuffix(domain), "\(domain)")
        }
    }

    @Test func missingFileIsNil() throws {
        #expect(try PublicSuffixList.load(path: "/nonexistent/public_suffix_list.dat") == nil)
    }
}
