import Foundation
import Testing

@testable import MirrorShared

@Suite("the shared crawl's schema")
struct SharedSchemaTests {
    /// A migration runs one statement per query: split where a line ends a statement, but not
    /// inside a function's `$$` body, whose lines end with `;` too.
    @Test func aMigrationIsSplitIntoStatementsOutsideDollarQuotes() {
        let migration = """
            CREATE TABLE a (x integer);
            CREATE FUNCTION f() RETURNS integer LANGUAGE plpgsql AS $$
            BEGIN
                RETURN 1;
            END
            $$;
            CREATE INDEX b ON a (x);

            """
        let statements = SharedSchema.statements(in: migration).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(statements.count == 3, "\(statements)")
        #expect(statements.first == "CREATE TABLE a (x integer)")
        #expect(statements.dropFirst().first?.hasSuffix("RETURN 1;\nEND\n$$") == true, "\(statements)")
        #expect(statements.last == "CREATE INDEX b ON a (x)")
    }

    @Test func everyMigrationOfTheSchemaSplitsIntoWholeStatements() {
        for migration in SharedSchema.migrations {
            for statement in SharedSchema.statements(in: migration) {
                #expect(statement.components(separatedBy: "$$").count.isMultiple(of: 2) == false, "unbalanced $$ in \(statement)")
            }
        }
    }
}
