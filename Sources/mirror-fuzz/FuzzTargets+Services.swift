import Foundation
import MirrorSQLite

@testable import MirrorBrowser
@testable import MirrorSearch

extension FuzzTargets {
    /// What other programs and people send: the DevTools protocol's messages, search queries.
    static let services: [FuzzTarget] = [devtools, searchQuery]

    static let devtools = FuzzTarget(
        "devtools",
        contract: "the stream is cut into the same messages, the bytes between NULs, however it is chunked; decoding is total; a "
            + "JSONValue encoded decodes to itself; a message's fields agree with its JSONValue when both decode"
    ) { input in
        let whole = devToolsMessages([input[...]])
        let cut = input.first.map { Int($0) * input.count / 256 } ?? 0
        require(devToolsMessages([input[..<cut], input[cut...]]) == whole, "cut at \(cut), the stream gives other messages")
        let expected = input.split(separator: 0, omittingEmptySubsequences: false).dropLast().map(Array.init)
        require(whole == expected, "\(whole.count) messages, not the \(expected.count) between NULs")
        let events = PageEvents(traffic: PageTraffic(limit: 100) { _ in fatalError("a page event fetched") }, countsRequests: true)
        for bytes in whole.prefix(16) {
            let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            if let value {
                do {
                    let again = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value))
                    require(again == value, "\(value) encoded decodes as \(again)")
                } catch {
                    violation("\(value) does not encode and decode: \(error)")
                }
            }
            guard let message = try? JSONDecoder().decode(DevToolsPipe.Message.self, from: Data(bytes)) else { continue }
            if let method = message.method { events.take(method, message.params ?? .null) {} }
            // A message can decode while its JSON value does not: a number beyond a Double's range in a field it ignores.
            guard let value else { continue }
            require(message.method == value["method"]?.string, "the message's method is \(String(describing: message.method))")
            require(message.sessionId == value["sessionId"]?.string, "the message's session is \(String(describing: message.sessionId))")
            require(
                (message.params ?? .null) == (value["params"] ?? .null), "the message's params are \(String(describing: message.params))")
            require(
                (message.result ?? .null) == (value["result"] ?? .null), "the message's result is \(String(describing: message.result))")
            require(message.id.map { Double($0) } == value["id"]?.number, "the message's id is \(String(describing: message.id))")
        }
    }

    static let searchQuery = FuzzTarget(
        "search-query",
        contract: "a query is refused in words (not SQLite's), or its FTS5 expression runs in an index like the search index's and "
            + "in the snippet table"
    ) { input in
        let text = String(decoding: input, as: UTF8.self)
        let query: SearchQuery
        do {
            query = try SearchQuery(text)
        } catch {
            guard case .badQuery(let reason) = error as? SearchError else { violation("refused with \(error), not a bad query") }
            require(!reason.isEmpty, "refused without a reason")
            // The reason ends with the query as typed, which may itself say "sqlite": only the
            // words before it count.
            let words =
                reason.utf8.reversed().starts(with: text.utf8.reversed()) ? Substring(reason.utf8.dropLast(text.utf8.count)) : reason[...]
            let lowered = words.lowercased()
            require(!lowered.contains("fts5") && !lowered.contains("sqlite"), "refused in SQLite's words: \(error)")
            return
        }
        require(!query.expression.isEmpty, "an empty expression")
        for word in query.words { require(!word.text.isEmpty && word.text == word.text.lowercased(), "the word '\(word.text)'") }
        do {
            _ = try searchDatabase.statement(
                "SELECT rowid, bm25(words, 10.0, 5.0, 5.0, 1.0) AS score FROM words WHERE words MATCH ? ORDER BY score LIMIT 10"
            ).rows([.text(query.expression)]) { $0.int(0) }
            _ = try searchDatabase.statement("SELECT snippet(found, 0, char(2), char(3), '…', 16) FROM found WHERE found MATCH ?")
                .rows([.text(query.expression)]) { $0.string(0) }
        } catch {
            violation("SQLite refuses \(query.expression.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()): \(error)")
        }
    }
}

/// The messages a `DevToolsFraming` cuts from a stream read in `chunks`.
private func devToolsMessages(_ chunks: [ArraySlice<UInt8>]) -> [[UInt8]] {
    var framing = DevToolsFraming()
    var messages: [[UInt8]] = []
    for chunk in chunks { framing.feed(chunk) { messages.append(Array($0)) } }
    return messages
}

/// An index in memory with the search index's table of words (`SearchIndexBuilder`) and the
/// snippet finder's table, a few pages in each: one per process.
nonisolated(unsafe) private let searchDatabase: SQLiteDatabase = {
    do {
        let database = try SQLiteDatabase(path: ":memory:")
        let tokenizer = SearchIndexBuilder.tokenizer
        try database.execute(
            """
            CREATE VIRTUAL TABLE words USING fts5(title, headings, names, body, content = '', tokenize = '\(tokenizer)');
            CREATE VIRTUAL TABLE found USING fts5(body, tokenize = '\(tokenizer)');
            INSERT INTO words (rowid, title, headings, names, body) VALUES
                (1, 'os.walk', 'Walking a tree', 'walk', 'Generate the file names in a directory tree by walking it'),
                (2, 'C++ and «élan»', 'Übersicht', 'list', 'list comprehension, say "hi"; 東京 1 2 3'),
                (3, '', '', '', 'AND OR NOT NEAR the end');
            INSERT INTO found (body) VALUES ('Generate the file names in a directory tree by walking it: list comprehension, C++ 東京');
            """)
        return database
    } catch {
        violation("no search index in memory: \(error)")
    }
}()
