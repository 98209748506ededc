package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/datadir"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// Exit statuses (docs/protocol/cli.md).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// env is what a command sees of the world; tests build their own.
type env struct {
	ctx    context.Context // canceled on SIGINT/SIGTERM
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one `awp` subcommand.
type command struct {
	name    string
	usage   string // the synopsis after "usage: "
	summary string // one line for `awp help`
	run     func(e *env, args []string) error
}

// lookup finds a command by name (hidden helpers too).
func lookup(name string) *command {
	for _, c := range append(commands, cmdComplete) {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program as a function: it parses args (without the
// program name), runs the command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runMain(context.Background(), args, stdout, stderr, os.Getenv)
}

// runMain is run with the context and environment injected.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	args, getenv, err := leadingData(args, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "awp: %v\n", err)
		return exitUsage
	}
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, getenv: getenv}
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage())
		return exitUsage
	}
	c := lookup(args[0])
	if c == nil {
		switch args[0] {
		case "-h", "-help", "--help":
			fmt.Fprint(stdout, topUsage())
			return exitOK
		case "-version", "--version":
			c, args = lookup("version"), args[:1]
		default:
			fmt.Fprintf(stderr, "awp: unknown command %q%s\n`awp help` lists the commands.\n", args[0], suggest(args[0]))
			return exitUsage
		}
	}
	err = c.run(e, args[1:])
	label := c.name
	if c.name == "blob" && len(args) > 1 && args[1] == "get" {
		label = "blob get"
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, c, err)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "awp %s: %s\nusage: %s\n", label, oneLine(ue.msg), c.usage)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "awp %s: %s\n", label, oneLine(err.Error()))
		return exitFail
	}
}

// leadingData takes a --data DIR (or --data=DIR) given before the command,
// as in `awp --data DIR threads`, and makes it the run's $AWP_DATA: every
// command takes --data, and one given after the command still wins over
// it. A first argument that is not --data leaves args and getenv as they
// are.
func leadingData(args []string, getenv func(string) string) ([]string, func(string) string, error) {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return args, getenv, nil
	}
	name, dir, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(args[0], "-"), "-"), "=")
	if name != "data" {
		return args, getenv, nil
	}
	rest := args[1:]
	if !hasValue && len(rest) > 0 {
		dir, rest = rest[0], rest[1:]
	}
	if dir == "" {
		return nil, nil, errors.New("--data needs a directory (awp --data DIR COMMAND …)")
	}
	return rest, func(k string) string {
		if k == datadir.Env {
			return dir
		}
		return getenv(k)
	}, nil
}

// usageError is bad usage: exit 2 with the command's usage line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// oneLine keeps a failure reason on one line of stderr.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// flagSet is a command's flags plus the --data every command takes.
type flagSet struct {
	*flag.FlagSet
	data string
}

func newFlags(name string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("awp "+name, flag.ContinueOnError)}
	fs.SetOutput(io.Discard) // usage errors are printed by runMain
	fs.StringVar(&fs.data, "data", "", datadir.FlagUsage)
	return fs
}

// jsonFlag defines --json. always: the command prints JSON either way,
// and takes --json so that scripts can pass it to every command.
func (fs *flagSet) jsonFlag(always bool) *bool {
	usage := "print JSON"
	if always {
		usage = "print JSON (the output is JSON either way)"
	}
	return fs.Bool("json", false, usage)
}

// parse parses args, accepting flags between positional arguments too
// (docs/protocol/cli.md writes `awp state --th TH STATE [--note N]`); "--" ends the
// flags. It returns the positional arguments.
func (fs *flagSet) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{fs: fs}
			}
			return nil, &usageError{msg: err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// dataDir resolves --data: the flag, else $AWP_DATA, else the user config
// dir's awp/ (datadir.Resolve, which the tray app shares). The result is
// absolute.
func (e *env) dataDir(flagValue string) (string, error) {
	return datadir.Resolve(flagValue, e.getenv)
}

// client returns a local API client for the data directory of fs.
func (e *env) client(fs *flagSet) (*localapi.Client, error) {
	dir, err := e.dataDir(fs.data)
	if err != nil {
		return nil, err
	}
	return localapi.NewClient(localapi.SocketPath(dir)), nil
}

// parseNoArgs parses a command's flags and refuses positional arguments.
func (fs *flagSet) parseNoArgs(args []string) error {
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	return nArgs(pos, 0, "")
}

// clientNoArgs parses a command's flags, refuses positional arguments, and
// returns a local API client: the start every argument-less command shares.
func (e *env) clientNoArgs(fs *flagSet, args []string) (*localapi.Client, error) {
	if err := fs.parseNoArgs(args); err != nil {
		return nil, err
	}
	return e.client(fs)
}

// askPeer parses a command's flags, refuses positional arguments and asks
// the running peer with get (a localapi.Client method, such as
// (*localapi.Client).Identity): the start every command that prints one
// answer shares. A failed request is wrapped for the user (env.wrap) under
// the command's name.
func askPeer[T any](e *env, fs *flagSet, args []string, name string, get func(*localapi.Client, context.Context) (T, error)) (T, error) {
	c, err := e.clientNoArgs(fs, args)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := get(c, e.ctx)
	return v, e.wrap(name, err)
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// writeJSON prints v as one line of JSON, without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// checkKey reports bad usage unless s is an "ed25519:…" key.
func checkKey(flagName, s string) error {
	if _, err := key.ParsePublic(s); err != nil {
		return usagef("%s: %v", flagName, err)
	}
	return nil
}

// checkedKeys parses keys that checkKey passed (a text that would not
// parse is left out; check refused it before).
func checkedKeys(ss []string) []key.PublicKey {
	var out []key.PublicKey
	for _, s := range ss {
		if k, err := key.ParsePublic(s); err == nil {
			out = append(out, k)
		}
	}
	return out
}

// checkTh reports bad usage unless s is a thread id (docs/protocol/framing.md).
func checkTh(flagName, s string) error {
	ok := strings.HasPrefix(s, "thr_") && len(s) > 4 && len(s) <= 4+32
	for _, r := range s[min(len(s), 4):] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z') {
			ok = false
		}
	}
	if !ok {
		return usagef("%s %q: want thr_ and 1 to 32 of [0-9a-z]", flagName, s)
	}
	return nil
}

// checkAddress reports bad usage unless --to (to) is given and --th (th),
// when given, is a thread id: the flags that address a line (send,
// request).
func checkAddress(to, th string) error {
	if to == "" {
		return usagef("--to is required")
	}
	if th == "" {
		return nil
	}
	return checkTh("--th", th)
}

// clientTo returns a local API client for the data directory of fs and
// the key to (--to: a key, a key prefix or a peer's name) names.
func (e *env) clientTo(fs *flagSet, to string) (*localapi.Client, key.PublicKey, error) {
	c, err := e.client(fs)
	if err != nil {
		return nil, key.PublicKey{}, err
	}
	k, err := resolveKey(e.ctx, c, "--to", to)
	if err != nil {
		return nil, key.PublicKey{}, err
	}
	return c, k, nil
}

// clientOneArg parses a command's flags and its one argument (what, not
// empty), and returns a local API client and the argument.
func (e *env) clientOneArg(fs *flagSet, args []string, what string) (*localapi.Client, string, error) {
	pos, err := fs.parse(args)
	if err != nil {
		return nil, "", err
	}
	arg, err := oneArg(pos, what)
	if err != nil {
		return nil, "", err
	}
	c, err := e.client(fs)
	return c, arg, err
}

// oneArg reports bad usage unless pos is one argument (what), not empty,
// and returns it.
func oneArg(pos []string, what string) (string, error) {
	if err := nArgs(pos, 1, what); err != nil {
		return "", err
	}
	if pos[0] == "" {
		return "", usagef("%s is empty", what)
	}
	return pos[0], nil
}

// threadArgs parses the flags and the one TH of a command on a thread, and
// resolves *from (a key, a prefix or a name; read once the flags are
// parsed) when it is given: the sharer of a thread mirrored to this peer;
// none (the zero key) is a thread of mine.
func (e *env) threadArgs(fs *flagSet, args []string, from *string) (c *localapi.Client, th string, sharer key.PublicKey, err error) {
	pos, err := fs.parse(args)
	if err != nil {
		return nil, "", sharer, err
	}
	if err := nArgs(pos, 1, "TH"); err != nil {
		return nil, "", sharer, err
	}
	if err := checkTh("TH", pos[0]); err != nil {
		return nil, "", sharer, err
	}
	if c, err = e.client(fs); err != nil {
		return nil, "", sharer, err
	}
	if *from != "" {
		if sharer, err = resolveKey(e.ctx, c, "--from", *from); err != nil {
			return nil, "", sharer, err
		}
	}
	return c, pos[0], sharer, nil
}

// dialArgs are a dialing command's argument and flags.
type dialArgs struct {
	arg     string        // what it dials (ADDR, INVITE)
	timeout time.Duration // --timeout: 0 waits as long as the peer does
	asJSON  bool
}

// parseDial defines --timeout (described by timeoutUsage) and --json,
// parses args and returns the one argument (what).
func (fs *flagSet) parseDial(args []string, what, timeoutUsage string) (dialArgs, error) {
	timeout := fs.duration("timeout", defaultConnectTimeout, timeoutUsage)
	asJSON := fs.jsonFlag(false)
	pos, err := fs.parse(args)
	if err != nil {
		return dialArgs{}, err
	}
	if err := nArgs(pos, 1, what); err != nil {
		return dialArgs{}, err
	}
	if *timeout < 0 {
		return dialArgs{}, usagef("--timeout must not be negative")
	}
	return dialArgs{arg: pos[0], timeout: *timeout, asJSON: *asJSON}, nil
}

// dial has the peer of fs's --data make the connection d.arg names (call
// is Client.Connect or Client.AddInvite) and waits at most d.timeout for
// its handshake (0: as long as the peer does). timedOut reports that
// d.timeout ran out, not that the command was interrupted.
func (e *env) dial(fs *flagSet, d dialArgs, call func(*localapi.Client, context.Context, string) (key.PublicKey, error)) (k key.PublicKey, timedOut bool, err error) {
	c, err := e.client(fs)
	if err != nil {
		return k, false, err
	}
	ctx, cancel := e.ctx, context.CancelFunc(func() {})
	if d.timeout > 0 {
		ctx, cancel = context.WithTimeout(e.ctx, d.timeout)
	}
	defer cancel()
	k, err = call(c, ctx, d.arg)
	timedOut = err != nil && ctx.Err() == context.DeadlineExceeded && e.ctx.Err() == nil
	return k, timedOut, err
}

// answer prints a command's answer: v as one line of JSON with --json,
// else text on its own line.
func (e *env) answer(asJSON bool, v any, text string) error {
	if asJSON {
		return writeJSON(e.stdout, v)
	}
	_, err := fmt.Fprintln(e.stdout, text)
	return err
}

// printKey prints a peer's key: alone on its line, or {"key": …} with
// --json.
func (e *env) printKey(k key.PublicKey, asJSON bool) error {
	return e.answer(asJSON, map[string]string{"key": k.String()}, k.String())
}

// logger is the peer's log on stderr: info, or debug when verbose.
func (e *env) logger(verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
}

// nArgs reports bad usage unless there are exactly n positionals.
func nArgs(pos []string, n int, what string) error {
	switch {
	case len(pos) < n:
		return usagef("missing %s", what)
	case len(pos) > n:
		return usagef("unexpected argument %q", pos[n])
	}
	return nil
}

// wrap names a failed request for the user: "not running" as it is, an
// interruption as such, anything else (the peer's message) unchanged.
func (e *env) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, localapi.ErrNotRunning) {
		return err // already one line for the user
	}
	if e.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: interrupted", op)
	}
	return err
}

// jsonUnmarshal is json.Unmarshal with the error wrapped.
func jsonUnmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}
