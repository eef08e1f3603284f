import MirrorSearch
import Testing

@Suite("Search queries")
struct SearchQueryTests {
    @Test(arguments: [
        ("os.walk", #""os.walk""#),
        ("walk*", #""walk"*"#),
        ("list comprehension", #""list" AND "comprehension""#),
        (#""list comprehension""#, #""list comprehension""#),
        ("walk OR stroll", #""walk" OR "stroll""#),
        ("walk NOT path", #""walk" NOT "path""#),
        ("(walk OR stroll) path", #"( "walk" OR "stroll" ) AND "path""#),
        ("C++ -- say \"hi\"", #""C++" AND "say" AND "hi""#),
        ("<script>alert(1)</script>", #""<script>alert" AND ( "1" ) AND "</script>""#),
    ])
    func queriesBecomeFTS5Expressions(query: String, expression: String) throws {
        #expect(try SearchQuery(query).expression == expression)
    }

    @Test(arguments: [
        ("\"unclosed", "a quote is not closed"),
        ("(walk", "a parenthesis is not closed"),
        ("walk)", "closed that was not opened"),
        ("AND walk", "AND needs words on both sides"),
        ("walk OR", "OR needs words on both sides"),
        ("walk ()", "nothing to search for before ')'"),
        ("  ", "nothing to search for"),
        ("-- ;", "nothing to search for"),
    ])
    func malformedQueriesAreRefusedInWords(query: String, reason: String) {
        #expect {
            try SearchQuery(query)
        } throws: { error in
            "\(error)".contains(reason) && !"\(error)".lowercased().contains("fts5") && !"\(error)".lowercased().contains("sqlite")
        }
    }
}
