package profile

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// waitDelay bounds how long Wait waits for the stdin pipe after the child
// exits (a grandchild may hold it open).
const waitDelay = 2 * time.Second

// exec runs an exec request.
func (r *Runner) exec(ctx context.Context, w *workspace, from key.PublicKey, req ExecRequest, argv []string, wantBlobs bool) (ExecResult, []Attachment) {
	res, atts := r.execIn(ctx, w, req, argv, wantBlobs)
	r.log().Info("profile: exec", "from", from.Short(), "argv", argv, "cwd", req.Cwd,
		"exit", res.Exit, "ms", res.DurationMS, "error", res.Error, "blobs", len(atts))
	return res, atts
}

// outputFiles creates the temporary files a command's stdout and stderr go
// to; on failure it returns the result's error text.
func (r *Runner) outputFiles() ([2]*os.File, string) {
	var outs [2]*os.File
	for i := range outs {
		f, err := os.CreateTemp(r.tempDir(), "awp-exec-*")
		if err != nil {
			closeRemove(outs[:i])
			return outs, "output file: " + errText(err)
		}
		outs[i] = f
	}
	return outs, ""
}

// collectOutputs reads the command's stdout and stderr (outs) into res,
// as text or as blobs when wantBlobs, and returns the blobs to attach.
// When the sandbox could not start the command, its message on stderr is
// res's error.
func (r *Runner) collectOutputs(outs [2]*os.File, res *ExecResult, sandboxFailed, wantBlobs bool) []Attachment {
	var atts []Attachment
	names := [2]string{"stdout", "stderr"}
	for i, f := range outs {
		text, truncated, att, err := r.collect(f, names[i], wantBlobs)
		if err != nil && res.Error == "" {
			res.Error = names[i] + ": " + errText(err)
		}
		if i == 0 {
			res.Stdout, res.StdoutTruncated = text, truncated
		} else {
			res.Stderr, res.StderrTruncated = text, truncated
		}
		if i == 1 && sandboxFailed {
			// bwrap could not start the command (execvp, chdir): its
			// message, on stderr, is the error.
			res.Error = "sandbox: " + bwrapMessage(text)
		}
		if att != nil {
			atts = append(atts, *att)
		}
	}
	return atts
}

// execIn runs argv for req in workspace w and returns its result.
func (r *Runner) execIn(ctx context.Context, w *workspace, req ExecRequest, argv []string, wantBlobs bool) (ExecResult, []Attachment) {
	res := ExecResult{Exit: -1}
	dir, e := w.openDir(req.Cwd)
	if e != "" {
		res.Error = e
		return res, nil
	}
	defer dir.Close()
	rel, _ := w.rel(req.Cwd)
	cdir, err := childDir(dir, filepath.Join(w.root.Name(), rel))
	if err != nil {
		res.Error = "working directory: " + err.Error()
		return res, nil
	}

	outs, e := r.outputFiles()
	if e != "" {
		res.Error = e
		return res, nil
	}

	cmd, status, e := r.command(w, dir, argv, req)
	if e != "" {
		res.Error = e
		closeRemove(outs[:])
		return res, nil
	}
	if status != nil {
		defer closeRemove([]*os.File{status})
	}
	cmd.Dir = cdir
	cmd.Env = r.env(req.Env)
	cmd.Stdout, cmd.Stderr = outs[0], outs[1]
	if req.Stdin != "" {
		cmd.Stdin = strings.NewReader(req.Stdin)
	}
	cmd.WaitDelay = waitDelay
	setGroup(cmd)

	timeout := DefaultTimeout
	if req.Timeout > 0 {
		timeout = time.Duration(req.Timeout) * time.Second
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	if r.beforeStart != nil {
		r.beforeStart()
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Error = err.Error()
		closeRemove(outs[:])
		return res, nil
	}
	dir.Close() // the child has its own working directory now
	res.Error, err = waitCmd(ctx, tctx, cmd)
	res.DurationMS = time.Since(start).Milliseconds()
	sandboxFailed := status != nil && res.Error == "" && !statusExitCode(status)
	if res.Error == "" && !sandboxFailed {
		res.Exit = cmd.ProcessState.ExitCode()
		if res.Exit < 0 {
			res.Error = cmd.ProcessState.String() // e.g. "signal: segmentation fault"
		} else if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				res.Error = err.Error()
			}
		}
	}

	atts := r.collectOutputs(outs, &res, sandboxFailed, wantBlobs)
	return res, atts
}

// waitCmd waits for the started cmd. When tctx (ctx with the request's
// timeout) ends first, it kills the command's process group, waits for it
// and returns ErrCanceled or ErrTimeout as the result's error.
func waitCmd(ctx, tctx context.Context, cmd *exec.Cmd) (string, error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return "", err
	case <-tctx.Done():
		_ = killGroup(cmd.Process.Pid)
		err := <-done
		if ctx.Err() != nil {
			return ErrCanceled, err
		}
		return ErrTimeout, err
	}
}

// collect turns one output file into its inline text and, when truncated
// and wanted, an attachment that takes over the file. Otherwise the file is
// removed.
func (r *Runner) collect(f *os.File, name string, wantBlobs bool) (string, bool, *Attachment, error) {
	keep := false
	defer func() {
		f.Close()
		if !keep {
			os.Remove(f.Name())
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return "", false, nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return "", false, nil, err
	}
	text, truncated, err := inlineText(f, st.Size())
	if err != nil || !truncated || !wantBlobs {
		return text, truncated, nil, err
	}
	sum, n, err := hashFile(f)
	if err != nil {
		return text, truncated, nil, err
	}
	keep = true
	return text, truncated, &Attachment{Name: name, Mime: "text/plain", Path: f.Name(), Size: n, Sha256: sum}, nil
}

// env is the base environment with the request's variables added (a
// request variable replaces a base one of the same name).
func (r *Runner) env(add map[string]string) []string {
	base := r.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	env := slices.Clone(base)
	for _, k := range slices.Sorted(maps.Keys(add)) {
		env = append(env, k+"="+add[k])
	}
	return env // os/exec keeps the last value of a repeated name
}

func closeRemove(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
}

// command builds the child: argv itself, or bwrap running argv in the
// sandbox (then status is the --json-status-fd file). On failure the
// third result is the result error.
func (r *Runner) command(w *workspace, dir *os.File, argv []string, req ExecRequest) (*exec.Cmd, *os.File, string) {
	sb := r.SandboxStatus()
	noNet := r.NoNetwork || req.Network != nil && !*req.Network
	switch {
	case sb.Sandbox == SandboxNone && req.Network != nil && !*req.Network:
		return nil, nil, "network: false needs the exec sandbox, which is off here (" + sb.Reason + ")"
	case sb.Sandbox == SandboxNone:
		return exec.Command(argv[0], argv[1:]...), nil, ""
	case !sb.Available:
		return nil, nil, ErrNoSandbox + ": " + sb.Reason
	}
	bw, err := r.bwrapPath()
	if err != nil {
		return nil, nil, ErrNoSandbox + ": " + err.Error()
	}
	// A bare name is looked up in the node's PATH, as without the sandbox
	// (and fails the same way when it is not there).
	prog := argv[0]
	if !strings.Contains(prog, "/") {
		c := exec.Command(prog)
		if c.Err != nil {
			return nil, nil, c.Err.Error()
		}
		prog = c.Path
	}
	cwd, err := dirPath(dir)
	if err != nil {
		return nil, nil, "working directory: " + err.Error()
	}
	home := r.HomeDir
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	plan := bwrapPlan{ws: realPath(w.names[0]), cwd: cwd, home: realPath(home),
		runtime: realPath(os.Getenv("XDG_RUNTIME_DIR")), noNet: noNet}
	for _, h := range w.g.paths {
		if rp := realPath(h); rp != "" {
			plan.hidden = append(plan.hidden, rp)
		}
	}
	if plan.ws == "" || !under(cwd, plan.ws) {
		return nil, nil, ErrOutside
	}
	status, err := os.CreateTemp(r.tempDir(), "awp-exec-status-*")
	if err != nil {
		return nil, nil, "status file: " + errText(err)
	}
	args := append(plan.args(3), prog)
	cmd := exec.Command(bw, append(args, argv[1:]...)...)
	cmd.ExtraFiles = []*os.File{status} // descriptor 3
	return cmd, status, ""
}

// bwrapMessage picks bwrap's own message out of stderr.
func bwrapMessage(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if m, ok := strings.CutPrefix(l, "bwrap: "); ok {
			return m
		}
	}
	return "could not start the command"
}
