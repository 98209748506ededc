// Package profile runs the AWP coding-agent requests of docs/protocol/profile.md — exec,
// fs:read and fs:write — inside a workspace sandbox.
//
// # Basics
//
// A Runner holds the workspace root and the limits. The node checks grants
// (package grant) and then calls Runner.Handle with the request's mime and
// data; Handle returns the result part's mime and data, plus attachments
// (full stdout/stderr or whole files) that the node sends as blob parts.
//
// Every path, and the exec cwd, is resolved through an os.Root opened on the
// workspace: "..", absolute paths outside the root, and symbolic links that
// point out (anywhere in the path) fail with "path outside workspace", and
// nothing outside is read, written or used as a working directory. The exec
// child starts in the directory that was opened through the os.Root (on
// Linux via /proc/self/fd/N), so a symlink swapped in after the check cannot
// move it.
//
// Runner.Hidden (the node's data directory) is never reachable, even when
// the workspace contains it: every directory a request opens is checked
// by identity (device and inode), walking up by descriptor to the root,
// and the last component is opened relative to that checked descriptor.
//
// Exec runs under bubblewrap where it works (Runner.Sandbox, "Exec
// sandbox" in docs/profile.md): the workspace read-write, the system
// read-only, home, the runtime directory and the data directory hidden, a
// fresh /tmp, its own PID namespace.
//
// # Caveats
//
// Without the sandbox (SandboxNone, or no working bwrap under SandboxAuto)
// a granted exec runs with the peer's own user rights and can read or
// write anything that user can ("cd / && …"): an exec grant is then full
// shell access; fs grants are the confined ones.
//
// On timeout the child's process group is killed; unsandboxed, a
// grandchild that leaves the group (setsid, setpgid) survives, and after a
// normal exit background processes the command started are left running.
//
// Choices where the profile (docs/protocol/profile.md) is silent are listed in docs/profile.md.
//
// It owns running requests inside the workspace. It must not check grants
// (the node does, before calling it), and must never read, write or run
// anything outside the workspace or inside the node's data directory.
package profile
