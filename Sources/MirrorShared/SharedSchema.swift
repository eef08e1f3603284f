import PostgresNIO

/// The tables of shared crawls, all named `mirror_…`, versioned in `mirror_schema`. A worker
/// brings the schema up to date under an advisory lock before it does anything else; one that
/// finds a newer version than it knows stops.
enum SharedSchema {
    /// The statements that take the schema from version N to N + 1, in order.
    static let migrations: [String] = [
        """
        CREATE TABLE mirror_crawls (
            id bigserial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            options text NOT NULL,
            round integer NOT NULL DEFAULT 1,
            started_at double precision NOT NULL,
            finished_at double precision,
            pages_taken integer NOT NULL DEFAULT 0
        );
        CREATE TABLE mirror_workers (
            crawl bigint NOT NULL REFERENCES mirror_crawls ON DELETE CASCADE,
            worker text NOT NULL,
            round integer NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now(),
            heartbeat timestamptz NOT NULL DEFAULT now(),
            stopped boolean NOT NULL DEFAULT false,
            report text,
            PRIMARY KEY (crawl, worker)
        );
        CREATE TABLE mirror_hosts (
            crawl bigint NOT NULL REFERENCES mirror_crawls ON DELETE CASCADE,
            host text NOT NULL,
            robots_known boolean NOT NULL,
            delay double precision NOT NULL,
            next_at timestamptz NOT NULL DEFAULT '-infinity',
            busy_until timestamptz NOT NULL DEFAULT '-infinity',
            PRIMARY KEY (crawl, host)
        );
        CREATE TABLE mirror_budgets (
            crawl bigint NOT NULL REFERENCES mirror_crawls ON DELETE CASCADE,
            authority text NOT NULL,
            pages_taken integer NOT NULL,
            PRIMARY KEY (crawl, authority)
        );
        CREATE TABLE mirror_urls (
            crawl bigint NOT NULL REFERENCES mirror_crawls ON DELETE CASCADE,
            url text NOT NULL,
            seq bigserial NOT NULL,
            host text NOT NULL,
            depth integer NOT NULL,
            role text NOT NULL,
            hops integer NOT NULL,
            referrer text,
            state text NOT NULL,
            worker text,
            lease_until timestamptz,
            fetches integer NOT NULL DEFAULT 0,
            status integer,
            detail text,
            PRIMARY KEY (crawl, url)
        );
        CREATE INDEX mirror_urls_queued ON mirror_urls (crawl, host, seq) WHERE state = 'queued';
        CREATE INDEX mirror_urls_claimed ON mirror_urls (crawl, host) WHERE state = 'claimed';
        CREATE TABLE mirror_bodies (
            digest text NOT NULL,
            part integer NOT NULL,
            parts integer NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY (digest, part)
        );
        CREATE TABLE mirror_responses (
            crawl bigint NOT NULL REFERENCES mirror_crawls ON DELETE CASCADE,
            url text NOT NULL,
            vary_key text NOT NULL,
            status integer NOT NULL,
            headers text NOT NULL,
            request_time double precision NOT NULL,
            response_time double precision NOT NULL,
            digest text NOT NULL,
            size bigint NOT NULL,
            worker text NOT NULL,
            PRIMARY KEY (crawl, url, vary_key)
        );
        CREATE TABLE mirror_renders (
            crawl bigint NOT NULL REFERENCES mirror_crawls ON DELETE CASCADE,
            url text NOT NULL,
            page text NOT NULL,
            PRIMARY KEY (crawl, url)
        );
        """,
        // A host's queue head: the first queued URL of the host, or NULL when it has none. Claims
        // take hosts in that order and lock only the hosts they take. A worker names the URLs it
        // claimed by `seq`, a key whose rows the planner never misjudges.
        """
        CREATE UNIQUE INDEX mirror_urls_seq ON mirror_urls (seq);
        ALTER TABLE mirror_hosts ADD COLUMN head_seq bigint;
        UPDATE mirror_hosts h SET head_seq = (SELECT min(seq) FROM mirror_urls u
            WHERE u.crawl = h.crawl AND u.host = h.host AND u.state = 'queued');
        CREATE INDEX mirror_hosts_ready ON mirror_hosts (crawl, head_seq) WHERE head_seq IS NOT NULL;
        """,
    ]

    static var version: Int { migrations.count }

    static func migrate(_ database: SharedDatabase) async throws {
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('mirror_schema'))", logger: database.logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS mirror_schema (version integer NOT NULL)", logger: database.logger)
            var current = 0
            for try await version in try await connection.query("SELECT version FROM mirror_schema", logger: database.logger)
                .decode(Int.self) { current = version }
            guard current <= version else { throw SharedCrawlError.newerSchema(found: current, known: version) }
            guard current < version else { return }
            for migration in migrations[current...] {
                // One statement per query: the extended protocol takes no more.
                for statement in migration.split(separator: ";\n") where !statement.allSatisfy(\.isWhitespace) {
                    try await connection.query(PostgresQuery(unsafeSQL: String(statement)), logger: database.logger)
                }
            }
            try await connection.query("DELETE FROM mirror_schema", logger: database.logger)
            try await connection.query("INSERT INTO mirror_schema (version) VALUES (\(version))", logger: database.logger)
        }
    }
}
