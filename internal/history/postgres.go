package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/radixark/miles-ci/internal/report"
)

// The bounds of every wait on the database. A run writes through a store
// that may be down, slow or unreachable; none of that may hold its job:
// the connection has ConnectTimeout, and each write, and the schema check
// and migration, StatementTimeout. A reading command bounds its whole
// scan itself (the caller's context).
const (
	ConnectTimeout   = 5 * time.Second
	StatementTimeout = 5 * time.Second
)

// SchemaVersion is the version of the tables this miles-ci writes and
// reads. Each version is one step of migrations: a database at an older
// version is brought up to this one, under a lock, by the first run that
// connects; migrations only add, so a miles-ci older than the database
// still reads and writes the columns it knows.
const SchemaVersion = 2

// migrations[v-1] brings the schema from version v-1 to v: version 1
// creates the table with the columns of version 1, and each later version
// adds its columns (see column.since). They run in one transaction with
// the version update, after a transaction-level advisory lock (lockKey),
// so that shards creating the schema at the same moment take turns and
// the later ones find it done.
//
// No index holds a value of a row's as it is: an index entry has at most
// 2,704 bytes, and a test path or a suite name from a report can be
// longer (one such row would fail every insert of its statement). The
// unique index is on row_key, the digest of the row's identity (Row.key);
// the others are on the md5 of their text, which the queries compare
// besides the text itself.
var migrations = migrationsOf(columns, SchemaVersion)

// migrationsOf returns the migrations up to version of a table of cols.
func migrationsOf(cols []column, version int) []string {
	out := make([]string, version)
	var defs []string
	for _, c := range cols {
		if c.since <= 1 {
			defs = append(defs, "\t"+c.definition())
		} else {
			out[c.since-1] += "ALTER TABLE miles_ci_attempts ADD COLUMN " + c.definition() + ";\n"
		}
	}
	out[0] = "CREATE TABLE miles_ci_attempts (\n" + strings.Join(defs, ",\n") +
		",\n\tCONSTRAINT miles_ci_attempts_row_key UNIQUE (row_key)\n);\n" +
		"CREATE INDEX miles_ci_attempts_suite_started ON miles_ci_attempts (md5(suite), started);\n" +
		"CREATE INDEX miles_ci_attempts_run_key ON miles_ci_attempts (md5(run_key));"
	return out
}

// lockKey is the advisory lock the migrations hold: any constant no other
// user of the database picks ("miles-ci" in ASCII).
const lockKey = 0x6d696c65732d6369

// columns are the columns of miles_ci_attempts, in the table's order:
// each declared once, and the table, the migrations, the insert, the
// scans, a row's key and the order of a grouped scan derived from them.
// A new column is one line at the end, .addedIn(N) with SchemaVersion
// raised to N, of a pointer field (nullable) or .orDefault, so that a
// miles-ci older than the database still writes; and its Row field.
var columns = []column{
	written("row_key", "bytea", func(k keyedRow) []byte { return k.key }),
	field("repository", "text", func(r *Row) *string { return &r.Repository }).inKey(),
	field("workflow", "text", func(r *Row) *string { return &r.Workflow }),
	field("run_id", "text", func(r *Row) *string { return &r.RunID }).inKey(),
	field("run_attempt", "text", func(r *Row) *string { return &r.RunAttempt }).inKey(),
	field("job", "text", func(r *Row) *string { return &r.Job }).inKey(),
	field("event", "text", func(r *Row) *string { return &r.Event }),
	// A bigint: a pull request number is kept whole.
	field("pr", "bigint", func(r *Row) **int { return &r.PR }),
	field("sha", "text", func(r *Row) *string { return &r.SHA }),
	field("cadence", "text", func(r *Row) *string { return &r.Cadence }),
	field("started", "timestamptz", func(r *Row) *time.Time { return &r.Started }).inKey(),
	field("suite", "text", func(r *Row) *string { return &r.Suite }).inKey().forTimings(),
	field("backend", "text", func(r *Row) *string { return &r.Backend }).inKey().forTimings(),
	// Row.check bounds a shard and its count to 1,000,000.
	field("shard_id", "integer", func(r *Row) *int { return &r.ShardID }).inKey(),
	field("shard_size", "integer", func(r *Row) *int { return &r.ShardSize }).inKey(),
	written("run_key", "text", func(k keyedRow) string { return k.row.Key() }),
	field("file", "text", func(r *Row) *string { return &r.File }).inKey().forTimings(),
	field("attempt", "bigint", func(r *Row) *int { return &r.Attempt }).inKey(),
	field("status", "text", func(r *Row) *report.Status { return &r.Status }).forTimings(),
	field("cause", "text", func(r *Row) *report.Cause { return &r.Cause }),
	field("fingerprint", "text", func(r *Row) *string { return &r.Fingerprint }).orDefault("''"),
	field("elapsed", "double precision", func(r *Row) *float64 { return &r.Elapsed }).forTimings(),
	field("est_time", "double precision", func(r *Row) *float64 { return &r.EstTime }),
	field("timeout", "bigint", func(r *Row) *int64 { return &r.Timeout }),
	field("runner", "text", func(r *Row) *string { return &r.Runner }),
	field("hostname", "text", func(r *Row) *string { return &r.Hostname }),
	field("setup", "double precision", func(r *Row) **float64 { return &r.Setup }),
	{name: "written_at", sqlType: "timestamptz", def: "now()"},
	// Version 2: the row of a job a GPU preflight stopped (Row.Stopped).
	field(stopColumn, "boolean", func(r *Row) *bool { return &r.Stopped }).orDefault("false").addedIn(2),
}

// stopColumn is the column that marks a preflight's stop row, which a
// scan leaves out unless asked (Filter.Stops) and "last N runs" never
// counts.
const stopColumn = "preflight_stop"

// column is one column of miles_ci_attempts.
type column struct {
	name    string
	sqlType string // as CREATE TABLE names it; also the insert's array's element type
	null    bool   // the column takes NULL (its Row field is a pointer)
	def     string // the column's DEFAULT; "" for none
	// since is the schema version that added the column (0 and 1: the
	// first).
	since int
	// values returns the column's value of each row, as the array an
	// insert binds; nil for a column the server fills (written_at).
	values func(rows []keyedRow) any
	// dest returns where a scan puts the column's value of r; nil for a
	// column no scan reads (derived from the others, or the server's).
	dest func(r *Row) any
	// normalize, when set, makes a scanned value as a row from a report
	// holds it.
	normalize func(r *Row)
	// identity says the column is part of a row's identity (Row.key);
	// text spells its value there.
	identity bool
	text     func(r *Row) string
	// timing says a Filter.TimingOnly scan reads the column.
	timing bool
}

// field declares a column that keeps a field of Row (at returns where it
// is): written from it and scanned back into it. A pointer field makes a
// nullable column; any other is NOT NULL.
func field[T any](name, sqlType string, at func(*Row) *T) column {
	c := column{name: name, sqlType: sqlType, dest: func(r *Row) any { return at(r) }}
	c.values = func(rows []keyedRow) any {
		out := make([]T, len(rows))
		for i := range rows {
			out[i] = *at(rows[i].row)
		}
		return out
	}
	c.null = reflect.TypeFor[T]().Kind() == reflect.Pointer
	if reflect.TypeFor[T]() == reflect.TypeFor[time.Time]() {
		// A time scans in the local zone; a row's times are in UTC.
		c.normalize = func(r *Row) {
			t := any(at(r)).(*time.Time)
			*t = t.UTC()
		}
	}
	c.text = func(r *Row) string {
		switch v := any(*at(r)).(type) {
		case string:
			return v
		case int:
			return strconv.Itoa(v)
		case time.Time:
			return v.UTC().Format(report.StartedLayout)
		}
		panic(fmt.Sprintf("history: column %s of type %T cannot be part of a row's key", name, *at(r)))
	}
	return c
}

// written declares a column a writer derives from a row (value), which
// no scan reads back.
func written[T any](name, sqlType string, value func(keyedRow) T) column {
	return column{name: name, sqlType: sqlType, values: func(rows []keyedRow) any {
		out := make([]T, len(rows))
		for i := range rows {
			out[i] = value(rows[i])
		}
		return out
	}}
}

// inKey makes c part of a row's identity (Row.key), in columns' order.
func (c column) inKey() column { c.identity = true; return c }

// forTimings makes a Filter.TimingOnly scan read c.
func (c column) forTimings() column { c.timing = true; return c }

// addedIn says the schema version that added c.
func (c column) addedIn(version int) column { c.since = version; return c }

// in reports whether a table at version has c.
func (c column) in(version int) bool { return max(c.since, 1) <= version }

// orDefault gives c a DEFAULT.
func (c column) orDefault(sql string) column { c.def = sql; return c }

// definition is c as CREATE TABLE declares it.
func (c column) definition() string {
	d := c.name + " " + c.sqlType
	if !c.null {
		d += " NOT NULL"
	}
	if c.def != "" {
		d += " DEFAULT " + c.def
	}
	return d
}

// key is the digest of a row's identity: its keyColumns (the run's
// repository, run id and attempt, job, start, suite, backend and shard,
// the file and the attempt), each preceded by its length so that no two
// identities run together. The database keeps one row per key (its
// unique index is on the digest, 32 bytes, where the identity itself can
// be longer than an index entry may be: a 3 kB test path).
func (r *Row) key() []byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, c := range keyColumns {
		s := c.text(r)
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		io.WriteString(h, s)
	}
	return h.Sum(nil)
}

// pick returns the columns that keep returns true for, in columns' order.
func pick(keep func(column) bool) []column {
	var out []column
	for _, c := range columns {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// The columns each statement names: an insert's (those a writer fills),
// a scan's (those read back into a Row), a Filter.TimingOnly scan's, and
// the row's identity (Row.key, and the order of a Filter.Grouped scan).
var (
	insertColumns = pick(func(c column) bool { return c.values != nil })
	scanColumns   = pick(func(c column) bool { return c.dest != nil })
	timingColumns = pick(func(c column) bool { return c.timing })
	keyColumns    = pick(func(c column) bool { return c.identity })
)

// names joins the names of cols.
func names(cols []column) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return strings.Join(out, ", ")
}

// Postgres is the fleet's store: the tables miles_ci_schema (the schema's
// version) and miles_ci_attempts (the rows) of a PostgreSQL database,
// over one connection.
type Postgres struct {
	conn   *pgx.Conn
	redact *strings.Replacer
	// Refused counts the rows Write left out (see Write), Skipped those
	// the last Scan did (see Scan); Warnings says so.
	Refused rowSkips
	Skipped rowSkips
	// version is the schema's version: a reader of a database that no
	// writer of this miles-ci has migrated yet reads the columns it has.
	version int
}

// Warnings returns one line for the rows the store refused to write and
// one for those the last scan skipped, naming the first of each; none
// when there were none.
func (p *Postgres) Warnings() []string {
	var out []string
	for _, w := range []string{
		p.Refused.warning("refused", "and wrote the others"),
		p.Skipped.warning("skipped", "that no run writes"),
	} {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// IsURL reports whether s names a PostgreSQL database (postgres:// or
// postgresql://) rather than a directory of reports.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Mode says what OpenPostgres prepares the database for.
type Mode int

// Modes: a writer creates or migrates the schema; a reader only checks
// that there is one (a reading role may not create tables).
const (
	ForReading Mode = iota
	ForWriting
)

// OpenPostgres connects to the database url names, within ConnectTimeout,
// and prepares its schema for mode within StatementTimeout. The URL is a
// secret (it holds a password): no error of this store names it, nor its
// user, host, database or password.
func OpenPostgres(ctx context.Context, url string, mode Mode) (*Postgres, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, errors.New("the history URL is not a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DATABASE)")
	}
	p := &Postgres{redact: redactor(url, cfg)}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > ConnectTimeout {
		cfg.ConnectTimeout = ConnectTimeout
	}
	cfg.RuntimeParams["application_name"] = "miles-ci"
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	p.conn, err = pgx.ConnectConfig(cctx, cfg)
	if err != nil {
		return nil, p.wrap("connect", err)
	}
	sctx, cancel := context.WithTimeout(ctx, StatementTimeout)
	defer cancel()
	// A cancelled context (a stop signal, a bound run out) cancels the
	// statement: pgx gives up on the connection and sends the server a
	// cancel request as it closes it. But a reading command that a signal
	// ends exits at once, and its process may be gone before the request
	// is: the server is also asked to check, while a statement runs, that
	// its client is still there, and to end the statement when it is not
	// (PostgreSQL 14 and later; a server that refuses the setting, an
	// older one, finds out when it next writes to the gone client, which
	// a statement sorting or counting a whole table may not do for
	// minutes).
	if _, err := p.conn.Exec(sctx, `SET client_connection_check_interval = `+checkInterval); err != nil && !serverAnswered(err) {
		p.Close()
		return nil, p.wrap("connect", err)
	}
	if mode == ForWriting {
		err = p.migrate(sctx)
	} else {
		err = p.checkSchema(sctx)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// redactor replaces the secret parts of a database URL in a message.
func redactor(url string, cfg *pgx.ConnConfig) *strings.Replacer {
	secrets := []string{url, cfg.Password, cfg.User, cfg.Database, cfg.Host}
	for _, fb := range cfg.Fallbacks {
		secrets = append(secrets, fb.Host)
	}
	// The longest first, so that a part of a longer one never stays.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, s := range secrets {
		// A name of a letter or two would blank out ordinary words; it
		// gives nothing away either.
		if len(s) >= 3 {
			pairs = append(pairs, s, "***")
		}
	}
	// Such a user or database is still hidden where an error names it as
	// one: pgx's "user=ci database=db", the server's "for user \"ci\"".
	for _, name := range []struct{ key, value string }{{"user", cfg.User}, {"database", cfg.Database}} {
		if v := name.value; v != "" && len(v) < 3 {
			pairs = append(pairs, name.key+"="+v+" ", name.key+"=*** ", name.key+"="+v+"`", name.key+"=***`",
				`"`+v+`"`, `"***"`)
		}
	}
	return strings.NewReplacer(pairs...)
}

// resolvedAddrs replaces in a message the IP address of every dial that
// err records (pgx names the address it dialed beside the host, "ADDR
// (HOST)", and the dial error repeats it).
func resolvedAddrs(err error) *strings.Replacer {
	var pairs []string
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if op, ok := e.(*net.OpError); ok && op.Addr != nil {
			if host, _, serr := net.SplitHostPort(op.Addr.String()); serr == nil && len(host) >= 3 {
				pairs = append(pairs, host, "***")
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, c := range u.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return strings.NewReplacer(pairs...)
}

// checkInterval is client_connection_check_interval: how often the
// server checks, while a statement runs, that its client is still
// connected.
const checkInterval = "'1s'"

// serverAnswered reports whether err is the server's answer to a statement
// (rather than a connection that failed).
func serverAnswered(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe)
}

// Error is a failure of the database, its message free of the URL's
// parts.
type Error struct {
	Op  string // "connect", "migrate", "write", "read"
	Msg string
	// Timeout says the bound ran out.
	Timeout bool
}

func (e *Error) Error() string { return e.Op + ": " + e.Msg }

// wrap turns err into an *Error of op: on one line, redacted.
func (p *Postgres) wrap(op string, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	// The addresses the host resolved to first: the host's name is a
	// secret, and so is where it points (127.0.0.1 for localhost).
	msg = resolvedAddrs(err).Replace(msg)
	if p.redact != nil {
		msg = p.redact.Replace(msg)
	}
	return &Error{Op: op, Msg: msg, Timeout: errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)}
}

// migrate brings the schema up to SchemaVersion, under the lock. A
// schema already current is read, never locked or created: a role that
// may only read and insert (no CREATE on the schema, PostgreSQL 15's
// default for public) then writes every run once an owner has created
// the tables.
func (p *Postgres) migrate(ctx context.Context) error {
	// Two statements: a query naming a table that does not exist fails
	// when planned, whatever branch would read it.
	var exists bool
	if err := p.conn.QueryRow(ctx, `SELECT to_regclass('miles_ci_schema') IS NOT NULL`).Scan(&exists); err != nil {
		return p.wrap("migrate", err)
	}
	if exists {
		var current *int
		if err := p.conn.QueryRow(ctx, `SELECT max(version) FROM miles_ci_schema`).Scan(&current); err != nil {
			return p.wrap("migrate", err)
		}
		if current != nil && *current >= SchemaVersion {
			p.version = *current
			return nil
		}
	}
	tx, err := p.conn.Begin(ctx)
	if err != nil {
		return p.wrap("migrate", err)
	}
	defer func() {
		// A rollback after an error has its own bound: a server that
		// stalls then must not hold the job.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StatementTimeout)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockKey)); err != nil {
		return p.wrap("migrate", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS miles_ci_schema (version integer NOT NULL)`); err != nil {
		return p.wrap("migrate", err)
	}
	var version int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM miles_ci_schema`).Scan(&version); err != nil {
		return p.wrap("migrate", err)
	}
	if version < 0 {
		return unknownVersion("migrate", version)
	}
	if version >= SchemaVersion {
		if err := tx.Commit(ctx); err != nil {
			return p.wrap("migrate", err)
		}
		p.version = version
		return nil
	}
	for v := version + 1; v <= SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, migrations[v-1]); err != nil {
			return p.wrap("migrate", fmt.Errorf("to version %d: %w", v, err))
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM miles_ci_schema`); err != nil {
		return p.wrap("migrate", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO miles_ci_schema (version) VALUES ($1)`, SchemaVersion); err != nil {
		return p.wrap("migrate", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return p.wrap("migrate", err)
	}
	p.version = SchemaVersion
	return nil
}

// checkSchema makes sure the database has a history to read.
func (p *Postgres) checkSchema(ctx context.Context) error {
	var version *int
	err := p.conn.QueryRow(ctx, `SELECT max(version) FROM miles_ci_schema`).Scan(&version)
	var pe *pgconn.PgError
	if err != nil || version == nil {
		if err == nil || errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
			return &Error{Op: "read", Msg: "the database holds no run history (no miles_ci_schema table; the first run with --history creates it)"}
		}
		return p.wrap("read", err)
	}
	if *version < 1 {
		return unknownVersion("read", *version)
	}
	p.version = *version
	return nil
}

// unknownVersion is the error of a schema version below 1, which no
// miles-ci writes (someone edited the table): read as it is, it would
// index no migration and select no column.
func unknownVersion(op string, version int) error {
	return &Error{Op: op, Msg: fmt.Sprintf("the database's schema version is %d, which no miles-ci writes (miles_ci_schema holds 1 or more)", version)}
}

// Close implements Reader and Writer.
func (p *Postgres) Close() error {
	if p.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), StatementTimeout)
	defer cancel()
	return p.conn.Close(ctx)
}

// insertSQL inserts rows given as one array per column, in
// insertColumns' order, leaving the rows already there.
var insertSQL = insertSQLOf(insertColumns)

// insertSQLOf is the insert of cols' values (see rowArrays).
func insertSQLOf(cols []column) string {
	args := make([]string, len(cols))
	for i, c := range cols {
		args[i] = fmt.Sprintf("$%d::%s[]", i+1, c.sqlType)
	}
	return "INSERT INTO miles_ci_attempts (" + names(cols) + ") SELECT * FROM unnest(" +
		strings.Join(args, ", ") + ") ON CONFLICT (row_key) DO NOTHING"
}

// writeChunk bounds the rows of one statement, so that each stays well
// within StatementTimeout.
const writeChunk = 2000

// writeTries bounds how often a statement the server ended to break a
// deadlock (or a serialization failure) is tried.
const writeTries = 4

// keyedRow is a row to write and its key (Row.key).
type keyedRow struct {
	row *Row
	key []byte
}

// Write implements Writer: the rows go in statements of at most
// writeChunk rows, each bounded by StatementTimeout.
//
// One row never costs the others. A row that no run writes (see
// Row.check) is left out before any statement, and so is one the server
// refuses (a value it cannot store): its statement fails whole, and its
// rows go again one at a time. Such rows are counted in Refused, not
// returned as an error; an error is the store's failure (unreachable,
// too slow, no permission), which no row caused.
//
// Two writers of overlapping rows (two imports of the same reports in
// opposite orders) never deadlock: each statement inserts its rows in
// the order of their keys, so neither waits for a row the other holds
// while holding one it waits for. A deadlock or serialization failure a
// statement meets anyway (a writer that does not sort) is retried.
func (p *Postgres) Write(ctx context.Context, rows []Row) (int, error) {
	keyed := make([]keyedRow, 0, len(rows))
	for i := range rows {
		if err := rows[i].check(); err != nil {
			p.Refused.add(&rows[i], err.Error())
			continue
		}
		keyed = append(keyed, keyedRow{&rows[i], rows[i].key()})
	}
	slices.SortFunc(keyed, func(a, b keyedRow) int { return bytes.Compare(a.key, b.key) })
	added := 0
	for len(keyed) > 0 {
		n := min(len(keyed), writeChunk)
		k, err := p.insert(ctx, keyed[:n])
		if err != nil && rowRefused(err) {
			k, err = p.insertEach(ctx, keyed[:n])
		}
		added += k
		if err != nil {
			return added, p.wrap("write", err)
		}
		keyed = keyed[n:]
	}
	return added, nil
}

// insertEach inserts rows one statement each, leaving out (and counting
// in Refused) those the server refuses.
func (p *Postgres) insertEach(ctx context.Context, rows []keyedRow) (int, error) {
	added := 0
	for i := range rows {
		n, err := p.insert(ctx, rows[i:i+1])
		switch {
		case err != nil && rowRefused(err):
			p.Refused.add(rows[i].row, p.wrap("write", err).(*Error).Msg)
		case err != nil:
			return added, err
		}
		added += n
	}
	return added, nil
}

// insert runs one insert statement within StatementTimeout, again after a
// deadlock, up to writeTries times.
func (p *Postgres) insert(ctx context.Context, rows []keyedRow) (int, error) {
	cols := rowArrays(insertColumns, rows)
	for try := 1; ; try++ {
		sctx, cancel := context.WithTimeout(ctx, StatementTimeout)
		tag, err := p.conn.Exec(sctx, insertSQL, cols...)
		cancel()
		if err == nil {
			return int(tag.RowsAffected()), nil
		}
		if try == writeTries || !conflicted(err) {
			return 0, err
		}
		// The other writer goes on once this one's statement is undone;
		// a pause that grows with each try lets it finish.
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(time.Duration(try) * 20 * time.Millisecond):
		}
	}
}

// conflicted reports whether the server ended a statement because it
// met another's: a deadlock or a serialization failure, which the same
// statement again may not meet.
func conflicted(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// rowRefused reports whether err is the server refusing a value of a row
// (a data exception, a violated constraint, a value past a limit of the
// server's), as opposed to the store failing: the statement's other rows
// may well go in without it.
func rowRefused(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) != 5 {
		return false
	}
	switch pe.Code[:2] {
	case "22", "23", "54": // data_exception, integrity_constraint_violation, program_limit_exceeded
		return true
	}
	return false
}

// rowArrays turns rows into one array per column of cols, in their
// order.
func rowArrays(cols []column, rows []keyedRow) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.values(rows)
	}
	return out
}

// finiteTime scans a timestamptz into t. An infinite one ('infinity' or
// '-infinity', which the column holds and no run writes) leaves t zero
// and says so in infinite, so that the scan skips the row as one no run
// writes instead of failing on it.
type finiteTime struct {
	t        *time.Time
	infinite string
}

// ScanTimestamptz implements pgtype.TimestamptzScanner.
func (f *finiteTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	*f.t, f.infinite = time.Time{}, ""
	switch {
	case v.InfinityModifier == pgtype.Infinity:
		f.infinite = "infinity"
	case v.InfinityModifier == pgtype.NegativeInfinity:
		f.infinite = "-infinity"
	case v.Valid:
		*f.t = v.Time
	default:
		return errors.New("NULL where a time was expected")
	}
	return nil
}

// Scan implements Reader: the database filters, and streams the rows
// one at a time (pgx reads them off the connection as they are asked
// for), so a million rows cost the memory of one. A row no run writes
// (see Row.check: a negative elapsed time, a NaN setup, an unknown
// status) is left out and counted in Skipped; the answer is the other
// rows'. A cancelled ctx cancels the statement on the server.
func (p *Postgres) Scan(ctx context.Context, f Filter, fn func(*Row) error) error {
	p.Skipped = rowSkips{}
	// The index is on md5(suite) (see migrations): the suite is compared
	// by both.
	where := `($1 = '' OR md5(suite) = md5($1) AND suite = $1) AND ($2 = '' OR cadence = $2) AND ($3::timestamptz IS NULL OR started >= $3)`
	var since *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	statuses := make([]string, len(f.Statuses))
	for i, s := range f.Statuses {
		statuses[i] = string(s)
	}
	args := []any{f.Suite, f.Cadence, since, statuses}
	all := scanColumns
	if f.TimingOnly && !f.Stops {
		// A stop row read by its timing columns alone could not be
		// told from an attempt: asked for, it is read whole.
		all = timingColumns
	}
	// A database no writer of this miles-ci has migrated yet has the
	// columns of its version, and no stop row.
	var cols []column
	for _, c := range all {
		if c.in(p.version) {
			cols = append(cols, c)
		}
	}
	// What keeps the attempts alone, in a table that has stop rows.
	attempts := ""
	if len(pick(func(c column) bool { return c.name == stopColumn && c.in(p.version) })) > 0 {
		attempts = " AND NOT " + stopColumn
	}
	sql := "SELECT " + names(cols) + " FROM miles_ci_attempts WHERE " + where +
		` AND (cardinality($4::text[]) = 0 OR status = ANY($4::text[]))`
	if !f.Stops {
		sql += attempts
	}
	if f.LastRuns > 0 {
		// The latest runs as Filter.LastRuns orders them: byte order
		// (COLLATE "C") breaks ties as Go's string comparison does. The
		// index is on md5(run_key): the rows are found by it, and kept
		// by the key itself. A run counts by its attempts, not by a
		// stop row.
		sql = `WITH latest AS (SELECT run_key FROM miles_ci_attempts WHERE ` + where + attempts +
			` GROUP BY run_key ORDER BY min(started) DESC, run_key COLLATE "C" DESC LIMIT $5) ` + sql +
			` AND md5(run_key) IN (SELECT md5(run_key) FROM latest) AND run_key IN (SELECT run_key FROM latest)`
		args = append(args, f.LastRuns)
	}
	if f.Grouped {
		// The unique key's columns, which put the rows of one report,
		// and of one file in it, together.
		sql += ` ORDER BY ` + names(keyColumns)
	}
	rows, err := p.conn.Query(ctx, sql, args...)
	if err != nil {
		return p.wrap("read", err)
	}
	defer rows.Close()
	var r Row
	dest := make([]any, len(cols))
	var times []*finiteTime
	for i, c := range cols {
		dest[i] = c.dest(&r)
		if t, ok := dest[i].(*time.Time); ok {
			ft := &finiteTime{t: t}
			dest[i], times = ft, append(times, ft)
		}
	}
	for rows.Next() {
		// Each row from nothing: a pointer field (pr, setup) scans into
		// a value of its own, never one an earlier row shares.
		r = Row{}
		if err := rows.Scan(dest...); err != nil {
			return p.wrap("read", err)
		}
		for _, c := range cols {
			if c.normalize != nil {
				c.normalize(&r)
			}
		}
		row := r
		if i := slices.IndexFunc(times, func(ft *finiteTime) bool { return ft.infinite != "" }); i >= 0 {
			p.Skipped.add(&row, fmt.Sprintf("has a time of %s; expected a time", times[i].infinite))
			continue
		}
		if err := row.check(); err != nil {
			p.Skipped.add(&row, err.Error())
			continue
		}
		if err := fn(&row); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return p.wrap("read", err)
	}
	return nil
}
