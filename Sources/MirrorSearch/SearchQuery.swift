import Foundation

/// A reader's query made into an FTS5 query: words and "quoted phrases" match as phrases of the
/// index's tokens (so `os.walk` or `C++` is no syntax error), a trailing `*` makes a prefix
/// (`walk*`), `AND`, `OR`, `NOT` and parentheses keep their meaning. What FTS5 would refuse
/// (an unclosed quote or parenthesis, an operator with nothing to join, parentheses nested deeper
/// than its parser's stack) is refused here, in words.
public struct SearchQuery: Sendable, Equatable {
    /// The query in FTS5's syntax.
    public let expression: String
    /// A word the query looks for, lower-cased, and whether it also matches the longer words
    /// that start with it (`walk*`).
    public struct Word: Sendable, Equatable {
        public let text: String
        public let isPrefix: Bool
    }

    /// The words it looks for (to find where a page holds them).
    public let words: [Word]

    /// How deep parentheses may nest. FTS5's parser has a stack of 100 entries, and each level
    /// can hold seven (`( "a" OR "b" AND "c" NOT (` …): it refuses 14 levels of that form.
    public static let deepestNesting = 8

    public init(_ text: String) throws(SearchError) {
        var parts: [String] = []
        var words: [Word] = []
        var expectsOperand = true
        var depth = 0
        var index = text.startIndex
        func operand(_ phrase: String, prefix: Bool) {
            if !expectsOperand { parts.append("AND") }
            // Scalar by scalar: a quote or a NUL can start a character with combining marks after it,
            // which a search for the character alone passes over. A quote is doubled; a NUL would end
            // the query where SQLite reads it, and to the tokenizer it separates words as a space does.
            var quoted = String.UnicodeScalarView()
            for scalar in phrase.unicodeScalars {
                switch scalar {
                case "\"": quoted.append(contentsOf: "\"\"".unicodeScalars)
                case "\0": quoted.append(" ")
                default: quoted.append(scalar)
                }
            }
            parts.append("\"" + String(quoted) + "\"" + (prefix ? "*" : ""))
            let phraseWords = phrase.lowercased().split { !$0.isLetter && !$0.isNumber }
            words += phraseWords.indices.map { Word(text: String(phraseWords[$0]), isPrefix: prefix && $0 == phraseWords.count - 1) }
            expectsOperand = false
        }
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if character == "\"" {
                guard let close = text[text.index(after: index)...].firstIndex(of: "\"") else {
                    throw SearchError.badQuery("a quote is not closed: \(text)")
                }
                var after = text.index(after: close)
                let prefix = after < text.endIndex && text[after] == "*"
                if prefix { after = text.index(after: after) }
                let phrase = String(text[text.index(after: index)..<close])
                if !phrase.trimmingCharacters(in: .whitespaces).isEmpty { operand(phrase, prefix: prefix) }
                index = after
            } else if character == "(" {
                guard depth < Self.deepestNesting else {
                    throw SearchError.badQuery("parentheses nest more than \(Self.deepestNesting) deep: \(text)")
                }
                if !expectsOperand { parts.append("AND") }
                parts.append("(")
                depth += 1
                expectsOperand = true
                index = text.index(after: index)
            } else if character == ")" {
                guard depth > 0 else { throw SearchError.badQuery("a parenthesis is closed that was not opened: \(text)") }
                guard !expectsOperand else { throw SearchError.badQuery("nothing to search for before ')': \(text)") }
                parts.append(")")
                depth -= 1
                index = text.index(after: index)
            } else {
                let end = text[index...].firstIndex { $0.isWhitespace || $0 == "\"" || $0 == "(" || $0 == ")" } ?? text.endIndex
                let word = String(text[index..<end])
                index = end
                if ["AND", "OR", "NOT"].contains(word) {
                    guard !expectsOperand else { throw SearchError.badQuery("\(word) needs words on both sides: \(text)") }
                    parts.append(word)
                    expectsOperand = true
                } else {
                    let prefix = word.count > 1 && word.hasSuffix("*")
                    let stem = prefix ? String(word.dropLast()) : word
                    // A word of punctuation alone has no token to look for.
                    if stem.contains(where: { $0.isLetter || $0.isNumber }) { operand(stem, prefix: prefix) }
                }
            }
        }
        guard depth == 0 else { throw SearchError.badQuery("a parenthesis is not closed: \(text)") }
        if parts.last.map({ ["AND", "OR", "NOT"].contains($0) }) == true {
            throw SearchError.badQuery("\(parts.last!) needs words on both sides: \(text)")
        }
        guard parts.contains(where: { $0.hasPrefix("\"") }) else { throw SearchError.badQuery("nothing to search for: \(text)") }
        expression = parts.joined(separator: " ")
        self.words = words
    }
}
