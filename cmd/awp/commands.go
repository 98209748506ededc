package main

// commands is the command line's surface in one place: every command in
// the order `awp help` shows them, with its usage line and its summary.
// Each run function lives in its group's file (cmd_GROUP.go; help.go,
// completion.go).
var commands []*command

// init fills commands. One function on purpose: it is one table, data
// rather than logic, set in init only because help, one of its entries,
// reads the list (a variable's initializer may not refer to itself).
func init() {
	commands = []*command{
		{
			name:    "id",
			usage:   "awp id [--data DIR] [--keyring keyring|file] [--json]",
			summary: "prints this peer's key, creating the identity if there is none",
			run:     runID,
		},
		{
			name: "run",
			usage: "awp run [--data DIR] [--keyring keyring|file] [--listen ADDR]… [--dial ADDR]… [--name N] [--about A] " +
				"[--workspace DIR] [--trust KEY]… [--accept any|known|trusted] [--mirror-to KEY]… " +
				"[--presence full|peers|none] [--harness H] [--model M] [--approve deny|ask] [--approval-timeout D] " +
				"[--exec-sandbox auto|bwrap|none] [--exec-network=false] " +
				"[--allow-public-tcp] [--tailcat-relay R] [--keep-threads D] [--keep-blobs D] [--verbose]",
			summary: "runs the peer in the foreground until SIGINT/SIGTERM",
			run:     runRun,
		},
		{
			name:    "status",
			usage:   "awp status [--data DIR] [--json]",
			summary: `prints the running peer's {"key","name","listen":[…]}`,
			run:     runStatus,
		},
		{
			name:    "connect",
			usage:   "awp connect [--data DIR] [--timeout DURATION] [--json] ADDR",
			summary: "asks the running peer to dial ADDR and keep it up; prints the remote key",
			run:     runConnect,
		},
		{
			name: "send",
			usage: "awp send [--data DIR] --to KEY [--th TH] [--subject S] [--text T]… [--code-file F [--lang L]] " +
				"[--data-json JSON [--mime M]] [--blob FILE]… [--re ID]",
			summary: "queues one msg (durably); parts in order: texts, code, data, blobs",
			run:     runSend,
		},
		{
			name:    "state",
			usage:   "awp state [--data DIR] [--note N] --th TH STATE, or TH STATE",
			summary: "queues a state line (open, working, waiting, done, failed, closed…)",
			run:     runState,
		},
		{
			name:    "threads",
			usage:   "awp threads [--data DIR] [--json]",
			summary: "lists threads, newest activity first",
			run:     runThreads,
		},
		{
			name:    "show",
			usage:   "awp show [--data DIR] [--from SHARER] [--json] [--mark-read] TH",
			summary: "prints a thread's lines in order (--from: a thread mirrored from SHARER)",
			run:     runShow,
		},
		{
			name:    "peers",
			usage:   "awp peers [--data DIR] [--json]",
			summary: "lists known peers",
			run:     runPeers,
		},
		{
			name:    "trust",
			usage:   "awp trust [--data DIR] KEY",
			summary: "adds KEY to the trust list",
			run:     func(e *env, args []string) error { return runTrust(e, "trust", args, true) },
		},
		{
			name:    "untrust",
			usage:   "awp untrust [--data DIR] KEY",
			summary: "removes KEY from the trust list",
			run:     func(e *env, args []string) error { return runTrust(e, "untrust", args, false) },
		},
		{
			name:    "blobs",
			usage:   "awp blobs [--data DIR] [--json]",
			summary: "lists blobs received and sent",
			run:     runBlobs,
		},
		{
			name:    "blob",
			usage:   "awp blob get [--data DIR] [--from KEY] [-o FILE] REF",
			summary: "writes a received blob to FILE (default stdout); exit 1 unless complete and intact",
			run:     runBlob,
		},
		{
			name:    "watch",
			usage:   "awp watch [--data DIR] [--json]",
			summary: "streams the running peer's events until interrupted (--json: one object per line)",
			run:     runWatch,
		},
		{
			name:    "retention",
			usage:   "awp retention [--data DIR] [--keep-threads D] [--keep-blobs D] [--json]",
			summary: "shows or sets how long threads and blobs of closed threads are kept (D: 90d, 36h or off)",
			run:     runRetention,
		},
		{
			name:    "compact",
			usage:   "awp compact [--data DIR] [--json]",
			summary: "rewrites the store without its free pages, giving the space back (stop the peer first)",
			run:     runCompact,
		},
		{
			name:    "pending",
			usage:   "awp pending [--data DIR] [--json]",
			summary: "lists requests waiting for a decision",
			run:     runPending,
		},
		{
			name:    "decide",
			usage:   "awp decide [--data DIR] [--for DURATION] [--reason R] ID allow|deny",
			summary: "answers a pending request (allow --for D also issues a grant valid for D)",
			run:     runDecide,
		},
		{
			name:    "grant",
			usage:   "awp grant [--data DIR] --to KEY --caps C[,C…] --ttl DURATION [--on KEY]… [--note N]",
			summary: "signs a grant with this identity and sends it to KEY; prints the grant object",
			run:     runGrant,
		},
		{
			name:    "grants",
			usage:   "awp grants [--data DIR] [--json]",
			summary: "lists stored grants, issued and received",
			run:     runGrants,
		},
		{
			name:    "revoke",
			usage:   "awp revoke [--data DIR] ID",
			summary: "stops honoring a stored grant (ID from `awp grants`)",
			run:     runRevoke,
		},
		{
			name: "request",
			usage: "awp request [--data DIR] exec|fs:read|fs:write --to KEY [--grant FILE]… [--th TH] [--timeout D] " +
				"[exec: --cmd STRING | -- ARGV…] [--cwd DIR] [--env K=V]… [--stdin S | --stdin-file F] [--exec-timeout SECONDS] " +
				"[fs:read: --path P [--offset N] [--length N]] " +
				"[fs:write: --path P (--content S | --content-file F) [--base64] [--append] [--mkdir]] " +
				"[--data-json JSON]",
			summary: "sends a profile request and waits for the answer; prints the result's data",
			run:     runRequest,
		},
		{
			name:    "presence",
			usage:   "awp presence [--data DIR] [--json] | awp presence [--data DIR] [--json] detail [full|peers|none]",
			summary: "lists the presence table; `presence detail` shows or sets what this peer publishes",
			run:     runPresence,
		},
		{
			name:    "mirror",
			usage:   "awp mirror [--data DIR] hosts [--clear] [KEY…] | awp mirror [--data DIR] on|off TH",
			summary: "shows or sets the mirror hosts; switches mirroring of a thread on or off",
			run:     runMirror,
		},
		{
			name:    "private",
			usage:   "awp private [--data DIR] [--from SHARER] TH",
			summary: "asks the other party to stop mirroring thread TH (sends a private line)",
			run:     runPrivate,
		},
		{
			name:    "sandbox",
			usage:   "awp sandbox [--data DIR] [--json] [auto|bwrap|none]",
			summary: "shows or sets how exec requests run: in the bubblewrap sandbox, or unsandboxed as you",
			run:     runSandbox,
		},
		{
			name:    "invite",
			usage:   "awp invite [--data DIR] [--json]",
			summary: "prints this peer's invite",
			run:     runInvite,
		},
		{
			name:    "add",
			usage:   "awp add [--data DIR] [--timeout DURATION] [--json] INVITE",
			summary: "adds the peer an invite describes and connects; prints its key",
			run:     runAdd,
		},
		{
			name:    "mcp",
			usage:   "awp mcp [--data DIR] [--run [the flags of awp run…]]",
			summary: "serves AWP as MCP tools to a coding agent on stdin/stdout (--run: starts the peer too)",
			run:     runMCP,
		},
		{
			name:    "service",
			usage:   "awp service [--data DIR] install [awp run flags…] | awp service uninstall | awp service print [awp run flags…]",
			summary: "runs `awp run` at login as a systemd user unit: writes, enables and starts it (install), or removes it",
			run:     runService,
		},
		{
			name:    "version",
			usage:   "awp version [--json]   (also: awp --version)",
			summary: "prints the version of awp and the commit it was built from",
			run:     runVersion,
		},
		{
			name:    "completion",
			usage:   "awp completion bash|zsh|fish",
			summary: "prints a shell completion script (bash: source <(awp completion bash))",
			run:     runCompletion,
		},
		{
			name:    "help",
			usage:   "awp help [COMMAND]",
			summary: "prints this list, or one command's usage and flags",
			run:     runHelp,
		},
	}
}

// The hidden helper the completion scripts call for values that only the
// running peer knows: `awp __complete keys|threads [--data DIR]`.
var cmdComplete = &command{
	name:  "__complete",
	usage: "awp __complete keys|threads [--data DIR]",
	run:   runComplete,
}
