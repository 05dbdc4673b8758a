package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresServer is a throwaway PostgreSQL cluster for the tests of one
// package: initdb'd into a temporary directory, listening on a Unix
// socket there and on no TCP port, trusting every local connection. It is
// started by the first test that asks (Postgres) and stopped by the
// package's TestMain (RunWithPostgres), so a package pays for one start
// (a second or three) however many tests use it.
type PostgresServer struct {
	// Dir holds the cluster: data/ and sock/ (the socket and the log).
	Dir  string
	bin  string
	cred *syscall.Credential // the server's user when the tests run as root
	dbs  atomic.Int64
	proc *os.Process   // the running server, nil when stopped
	done chan struct{} // closed when it exited
}

var (
	pgOnce    sync.Once
	pgServer  *PostgresServer
	pgFailure string
	// pgManaged is set by RunWithPostgres: only a package whose TestMain
	// stops the server may start one.
	pgManaged bool
)

// RunWithPostgres runs the package's tests and stops the server if one
// started; a TestMain of a package that calls Postgres is
// `os.Exit(testutil.RunWithPostgres(m))`.
func RunWithPostgres(m *testing.M) int {
	pgManaged = true
	code := m.Run()
	if pgServer != nil {
		if err := pgServer.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop the test PostgreSQL: %v\n", err)
			code = 1
		}
		// The server's processes name its directory; none may be left.
		if left := pgServer.left(); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "the test PostgreSQL left processes running: %s\n", strings.Join(left, "; "))
			code = 1
		}
		os.RemoveAll(pgServer.Dir)
	}
	return code
}

// Postgres returns the package's server, starting it on the first call;
// where PostgreSQL is not installed or cannot start, t is skipped (see
// Skip: a failure under MILES_CI_STRICT=1). A server that ended without
// Stop is started again: an earlier test's in-process run sweeps every
// descendant of the test process when it ends (runner.KillLeftovers), the
// server among them.
func Postgres(t testing.TB) *PostgresServer {
	t.Helper()
	if !pgManaged {
		t.Fatal("testutil.Postgres needs the package's TestMain to be os.Exit(testutil.RunWithPostgres(m)), which stops the server")
	}
	pgOnce.Do(func() {
		s, err := startPostgres()
		if err != nil {
			pgFailure = err.Error()
			return
		}
		pgServer = s
	})
	if pgServer == nil {
		Skip(t, "no PostgreSQL server: "+pgFailure)
	}
	if pgServer.proc != nil {
		select {
		case <-pgServer.done:
			if err := pgServer.Start(); err != nil {
				t.Fatalf("restart the test PostgreSQL: %v", err)
			}
		default:
		}
	}
	return pgServer
}

// startPostgres makes and starts a cluster.
func startPostgres() (*PostgresServer, error) {
	bin, err := pgBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "miles-ci-pg-")
	if err != nil {
		return nil, err
	}
	s := &PostgresServer{Dir: dir, bin: bin}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	for _, sub := range []string{"data", "sock"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: the cluster is the postgres
		// user's, else nobody's.
		cred, err := serverUser()
		if err != nil {
			return nil, err
		}
		s.cred = cred
		if err := os.Chmod(dir, 0o755); err != nil {
			return nil, err
		}
		for _, sub := range []string{"data", "sock"} {
			if err := os.Chown(filepath.Join(dir, sub), int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, err
			}
		}
	}
	if out, err := s.command("initdb", "-D", s.data(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale", "C").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLines(out))
	}
	if err := s.Start(); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// pgBin finds the directory of initdb, pg_ctl and postgres.
func pgBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", fmt.Errorf("initdb is not installed (apt-get install postgresql)")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// serverUser is the user a root test process runs the server as.
func serverUser() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 == nil && err2 == nil {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
		}
	}
	return nil, fmt.Errorf("running as root, with neither a postgres nor a nobody user to run the server as")
}

func (s *PostgresServer) data() string { return filepath.Join(s.Dir, "data") }

// Socket is the directory of the server's Unix socket.
func (s *PostgresServer) Socket() string { return filepath.Join(s.Dir, "sock") }

// command prepares one of the server's programs, as the server's user.
func (s *PostgresServer) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Start starts the server (again, after Stop), waiting until it accepts
// connections. The server is a child of the test process, with SIGQUIT
// (PostgreSQL's immediate shutdown) as its parent-death signal: a test
// binary that panics or is killed takes it along, and no server outlives
// the tests.
func (s *PostgresServer) Start() error {
	if s.proc != nil {
		select {
		case <-s.done: // stopped from outside (a test's kill)
			s.proc = nil
		default:
			return fmt.Errorf("the test PostgreSQL is running already")
		}
	}
	log, err := os.OpenFile(filepath.Join(s.Socket(), "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	// fsync off costs nothing a test needs (it guards against the machine
	// crashing); commits stay synchronous, so a row a client was told is
	// written survives the immediate shutdown a test may cause.
	cmd := s.command("postgres", "-D", s.data(), "-c", "listen_addresses=", "-k", s.Socket(),
		"-c", "fsync=off", "-c", "max_connections=50")
	cmd.Stdout, cmd.Stderr = log, log
	attr := cmd.SysProcAttr
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Pdeathsig = syscall.SIGQUIT
	attr.Setpgid = true
	cmd.SysProcAttr = attr
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		// The parent-death signal fires when the thread that started the
		// child ends: this one lives until the server does.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
		close(done)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	s.proc, s.done = cmd.Process, done
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-done:
			logText, _ := os.ReadFile(filepath.Join(s.Socket(), "log"))
			return fmt.Errorf("postgres exited at start: %s", lastLines(logText))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("postgres did not accept connections within 60s: %v", err)
		}
	}
}

// Stop stops the server at once (PostgreSQL's immediate shutdown):
// clients find the socket gone, as they would a crashed or unreachable
// database.
func (s *PostgresServer) Stop(t testing.TB) {
	t.Helper()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
}

func (s *PostgresServer) stop() error {
	if s.proc == nil {
		return nil
	}
	_ = s.proc.Signal(syscall.SIGQUIT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.proc.Pid, syscall.SIGKILL)
		<-s.done
	}
	s.proc = nil
	return nil
}

// Pid is the process id of the running server (0 when stopped), for a
// test file that stops it mid-run (kill -QUIT PID: an immediate shutdown).
func (s *PostgresServer) Pid() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid
}

// URL is the URL of database db on the server.
func (s *PostgresServer) URL(db string) string {
	return "postgresql:///" + db + "?host=" + s.Socket() + "&user=postgres&sslmode=disable"
}

// NewDatabase creates an empty database of its own for t and returns its
// URL.
func (s *PostgresServer) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), s.dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatalf("connect to the test PostgreSQL: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	return s.URL(name)
}

// left lists the server processes still alive from this cluster (the
// postmaster names its directory), waiting a little for its children,
// which end once they see it gone.
func (s *PostgresServer) left() []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := LeftRunning(s.Dir, 0)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lastLines(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
