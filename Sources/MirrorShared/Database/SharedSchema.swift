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
        // A claim in one call: the server runs its two statements without a round trip to the
        // worker in between, so the host rows it locks are held for as long as they run.
        """
        CREATE FUNCTION mirror_claim(p_crawl bigint, p_worker text, p_limit bigint, p_per_host bigint,
                                     p_lease double precision, p_asking_if_done boolean)
        RETURNS TABLE (seq bigint, url text, depth integer, role text, hops integer, referrer text, answered boolean)
        LANGUAGE plpgsql AS $$
        #variable_conflict use_column
        DECLARE
            v_hosts text[];
            v_slots bigint[];
        BEGIN
            -- The hosts with the oldest queue heads and a free slot that no other claim holds,
            -- locked until this claim ends (one slot until the host's robots.txt is known).
            SELECT array_agg(f.host ORDER BY f.head_seq), array_agg(f.slots ORDER BY f.head_seq) INTO v_hosts, v_slots
            FROM (SELECT h.host, h.head_seq, CASE WHEN h.robots_known THEN p_per_host ELSE 1 END AS slots
                  FROM mirror_hosts h WHERE h.crawl = p_crawl AND h.head_seq IS NOT NULL
                  AND (SELECT count(*) FROM mirror_urls u WHERE u.crawl = h.crawl AND u.host = h.host AND u.state = 'claimed')
                      < CASE WHEN h.robots_known THEN p_per_host ELSE 1 END
                  ORDER BY h.head_seq LIMIT p_limit FOR UPDATE SKIP LOCKED) f;
            IF v_hosts IS NULL THEN
                -- Nothing to claim. Asked, a row of NULLs says that nothing is queued or claimed
                -- by anyone (claims whose lease ended count as claimed: a heartbeat returns them).
                IF p_asking_if_done AND NOT EXISTS (SELECT 1 FROM mirror_hosts WHERE crawl = p_crawl AND head_seq IS NOT NULL)
                   AND NOT EXISTS (SELECT 1 FROM mirror_urls WHERE crawl = p_crawl AND state = 'claimed') THEN
                    RETURN QUERY SELECT NULL::bigint, NULL::text, NULL::integer, NULL::text, NULL::integer, NULL::text, NULL::boolean;
                END IF;
                RETURN;
            END IF;
            -- A statement of its own, so it counts the hosts' claims again, seeing those committed
            -- since the statement above began. A host's picks are the first of its queue, so its
            -- new head is its first queued URL after them.
            RETURN QUERY
            WITH picked AS (
                UPDATE mirror_urls u SET state = 'claimed', worker = p_worker,
                    lease_until = now() + p_lease * interval '1 second', fetches = u.fetches + 1
                FROM (SELECT c.seq FROM unnest(v_hosts, v_slots) AS f(host, slots)
                      CROSS JOIN LATERAL (SELECT q.seq FROM mirror_urls q
                          WHERE q.crawl = p_crawl AND q.host = f.host AND q.state = 'queued' ORDER BY q.seq
                          LIMIT least(p_limit, greatest(0, f.slots - (SELECT count(*) FROM mirror_urls k
                              WHERE k.crawl = p_crawl AND k.host = f.host AND k.state = 'claimed')))) c
                      ORDER BY c.seq LIMIT p_limit) p
                WHERE u.seq = p.seq
                RETURNING u.seq, u.url, u.host, u.depth, u.role, u.hops, u.referrer),
            heads AS (
                UPDATE mirror_hosts h SET head_seq = (SELECT min(q.seq) FROM mirror_urls q
                    WHERE q.crawl = h.crawl AND q.host = h.host AND q.state = 'queued' AND q.seq > m.last)
                FROM (SELECT k.host, max(k.seq) AS last FROM picked k GROUP BY k.host) m
                WHERE h.crawl = p_crawl AND h.host = m.host)
            SELECT p.seq, p.url, p.depth, p.role, p.hops, p.referrer,
                EXISTS (SELECT 1 FROM mirror_responses r WHERE r.crawl = p_crawl AND r.url = p.url)
            FROM picked p;
        END
        $$;
        """,
        // The order URLs were done in, so that a worker saves the others' as they come.
        """
        CREATE SEQUENCE mirror_done_seq;
        ALTER TABLE mirror_urls ADD COLUMN done_seq bigint;
        CREATE INDEX mirror_urls_done ON mirror_urls (crawl, done_seq) WHERE done_seq IS NOT NULL;
        """,
        // No statistics of the crawl columns. Each crawl has an id that statistics gathered
        // before it never saw, and a planner that takes such a crawl for a row or two reads all
        // of it where it wants one row (every host row of a crawl of many hosts, to move one
        // queue head). Without them, a crawl is taken for a small share of its table, and its
        // rows are found by their other columns too. Setting the column's type again drops the statistics gathered so far.
        // The claim's plans, which then do not depend on which crawl it is, are made once per
        // connection: a claim spends no time planning (about a quarter of its time in a crawl of
        // one host).
        """
        ALTER TABLE mirror_urls ALTER COLUMN crawl SET STATISTICS 0, ALTER COLUMN crawl TYPE bigint;
        ALTER TABLE mirror_responses ALTER COLUMN crawl SET STATISTICS 0, ALTER COLUMN crawl TYPE bigint;
        ALTER TABLE mirror_hosts ALTER COLUMN crawl SET STATISTICS 0, ALTER COLUMN crawl TYPE bigint;
        ALTER TABLE mirror_budgets ALTER COLUMN crawl SET STATISTICS 0, ALTER COLUMN crawl TYPE bigint;
        ALTER TABLE mirror_renders ALTER COLUMN crawl SET STATISTICS 0, ALTER COLUMN crawl TYPE bigint;
        ALTER TABLE mirror_workers ALTER COLUMN crawl SET STATISTICS 0, ALTER COLUMN crawl TYPE bigint;
        ALTER FUNCTION mirror_claim(bigint, text, bigint, bigint, double precision, boolean) SET plan_cache_mode = force_generic_plan;
        """,
    ]

    /// The statements of a migration: split at each `;` that ends a line, outside `$$` quotes.
    static func statements(in migration: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for (index, part) in migration.components(separatedBy: "$$").enumerated() {
            if index > 0 { current += "$$" }
            guard index.isMultiple(of: 2) else {
                current += part
                continue
            }
            let pieces = part.components(separatedBy: ";\n")
            current += pieces[0]
            for piece in pieces.dropFirst() {
                statements.append(current)
                current = piece
            }
        }
        statements.append(current)
        return statements.filter { !$0.allSatisfy(\.isWhitespace) }
    }

    static var version: Int { migrations.count }

    static func migrate(_ database: SharedDatabase) async throws {
        try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('mirror_schema'))")
            try await connection.query("CREATE TABLE IF NOT EXISTS mirror_schema (version integer NOT NULL)")
            var current = 0
            for try await version in try await connection.query("SELECT version FROM mirror_schema")
                .decode(Int.self)
            { current = version }
            guard current <= version else { throw SharedCrawlError.newerSchema(found: current, known: version) }
            guard current < version else { return }
            for migration in migrations[current...] {
                // One statement per query: the extended protocol takes no more.
                for statement in statements(in: migration) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement))
                }
            }
            try await connection.query("DELETE FROM mirror_schema")
            try await connection.query("INSERT INTO mirror_schema (version) VALUES (\(version))")
        }
    }
}
