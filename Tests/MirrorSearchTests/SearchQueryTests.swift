import MirrorSQLite
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

    /// Found by fuzzing (`mirror-fuzz search-query`): SQLite reads a query's text up to a NUL,
    /// so a NUL in a word or phrase cut the expression inside its quotes, a syntax error; and a
    /// quote or a NUL with a combining mark after it is one character with it, which
    /// Foundation's `replacingOccurrences` passes over, so the quote was not doubled and ended the
    /// phrase early. To the index's tokenizer a NUL separates words, as a space does.
    @Test func nulsAndQuotesAreEscapedWhateverFollowsThem() throws {
        let query = try SearchQuery("a\u{0}b \"c\u{0}d\"")
        #expect(query.expression == #""a b" AND "c d""#)
        #expect(query.words.map(\.text) == ["a", "b", "c", "d"])
        #expect(try SearchQuery("a\"\u{301}b").expression == "\"a\"\"\u{301}b\"")
        #expect(try SearchQuery("a\u{0}\u{7F1}b").expression == "\"a \u{7F1}b\"")
    }

    /// Found by fuzzing: FTS5's parser has a stack of 100 entries, and a query of nested
    /// parentheses overflowed it ("fts5: parser stack overflow", refused in SQLite's words).
    /// Nesting deeper than `deepestNesting` is refused in words; the deepest query accepted, of
    /// the form that fills the stack fastest, runs.
    @Test func parenthesesNestNoDeeperThanFTS5ReadsThem() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "(a OR b AND c NOT ", count: depth) + "d" + String(repeating: ")", count: depth)
        }
        let deepest = try SearchQuery(nested(SearchQuery.deepestNesting))
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE VIRTUAL TABLE words USING fts5(text)")
        try database.execute("INSERT INTO words VALUES ('a b c d')")
        let found = try database.statement("SELECT rowid FROM words WHERE words MATCH ?").rows([.text(deepest.expression)]) { $0.int(0) }
        #expect(found == [1])
        #expect {
            try SearchQuery(nested(SearchQuery.deepestNesting + 1))
        } throws: { error in
            "\(error)".contains("parentheses nest more than \(SearchQuery.deepestNesting) deep")
        }
    }
}
