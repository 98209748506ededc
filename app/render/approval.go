package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
)

// AllowFor is how long the prompt's shorter grant lasts: "Allow exec for
// 1 hour" on a request, "Allow for 1 hour" on a grant request that asked
// for longer.
const AllowFor = time.Hour

// MaxGrantFor is the longest grant a decision can sign (peer.MaxGrantTTL):
// peer.Node.Decide treats a longer Decision.For as 0, and the node denies a
// grant request asking for longer before anyone sees it. A request shown
// with a longer ttl (from an older node) is offered AllowFor only.
const MaxGrantFor = peer.MaxGrantTTL

// FieldRefused is the label of the field that says the node will refuse
// the request whatever the person decides (a path outside the workspace or
// in the data directory, a malformed write).
const FieldRefused = "will be refused"

// Approval is an approval request as the prompt shows it. Every part of it
// comes from the one request it was made from.
type Approval struct {
	Title  string  // "alice (gTl3Dqh9) asks to run exec on this peer"
	Who    string  // name and short key of who asks
	Fields []Field // who, capability, where, the exact command/cwd/path/content, reason…
	// Whole holds every field uncut when one in Fields was cut at
	// MaxField characters (nil otherwise): the prompt then offers the
	// whole request, shown in wrapped lines (WholeLines).
	Whole []Field
	// Choices are the buttons, Deny last (Choices).
	Choices []Choice
	// Grants says what the choice that signs a grant lets the peer do
	// after this request ("" for none).
	Grants string
	// Why is the node's reason for asking, in a sentence ("No grant of
	// yours covers this…"), apart from the asker's own reason (the field
	// "their reason"), which is the peer's text.
	Why string
	// Deadline is when the request is denied unanswered (zero: not said);
	// the prompt counts down to it (Countdown).
	Deadline time.Time
}

// Choice is one button of the prompt: what it says, and exactly the
// decision it takes (By is left to the caller).
type Choice struct {
	Label    string
	Decision peer.Decision
	// Primary marks the one choice drawn in the primary colour: the first
	// Allow, the one that grants least. Deny is drawn neutral: it is the
	// safe answer, not a dangerous one.
	Primary bool
}

// Deny is the label of the Deny choice.
const Deny = "Deny"

// FieldTheirReason is the label of the asker's own reason (a grant
// request's "reason"): the peer's words, shown as such.
const FieldTheirReason = "their reason"

// whyAsked turns the honor rule's refusals (grant.Why…) into sentences.
var whyAsked = map[string]string{
	grant.WhyNoGrant:    "No grant of yours lets them do this, so this peer asks you.",
	grant.WhyWrongSub:   "The grants they hold are for another key, so this peer asks you.",
	grant.WhyWrongCap:   "Their grant does not cover this, so this peer asks you.",
	grant.WhyExpired:    "Their grant has expired, so this peer asks you.",
	grant.WhyNotOn:      "Their grant is for other peers, not this one, so this peer asks you.",
	grant.WhyBadSig:     "The grant they sent is not validly signed, so this peer asks you.",
	grant.WhyNotTrusted: "The grant they sent is signed by a key you do not trust, so this peer asks you.",
}

// WhyAsked is the node's reason for asking the person about r, in a
// sentence.
func WhyAsked(r peer.ApprovalRequest) string {
	if r.Kind == peer.ApprovalGrantRequest {
		return "They ask you to sign a grant: you decide what it covers and for how long."
	}
	if s, ok := whyAsked[r.Reason]; ok {
		return s
	}
	for k, s := range whyAsked {
		if strings.HasPrefix(r.Reason, k+" (") { // "issuer not trusted (…)"
			return s
		}
	}
	if r.Reason == "" {
		return "No grant lets them do this, so this peer asks you."
	}
	return Clip(visible.String("This peer asks you: "+r.Reason+"."), MaxField)
}

// PathCheck says why the node would refuse a request naming path (an fs
// path or an exec cwd), or "" (profile.CheckPath with the node's
// workspace and data directory).
type PathCheck func(path string) string

// ApprovalTitle is the prompt's title and the list row of request r.
func ApprovalTitle(r peer.ApprovalRequest) string {
	who := nameOrKey(r.FromName, r.From.String())
	caps := strings.Join(r.Caps, ", ")
	var t string
	switch r.Kind {
	case peer.ApprovalGrantRequest:
		t = who + " asks for a grant: " + caps
	default:
		t = who + " asks to run " + caps + " on this peer"
	}
	return Clip(visible.String(t), MaxTitle)
}

// How an exec would run, in the prompt (peer.ApprovalRequest.Sandbox).
const (
	SandboxNone  = "none: runs unsandboxed as you"
	SandboxBwrap = "bubblewrap: sees the workspace, not your home or keys"
	// SandboxUnavailable: the node requires the sandbox and cannot run it.
	SandboxUnavailable = "required but unavailable here: the command will fail"
)

// DescribeApproval builds the prompt's content: who asks, for which
// capability, on which peer, the exact command, cwd, path or content, how
// long, why, and the choices, with every character that would not show as
// itself escaped (visible.String). self is this node's key; check, when
// not nil, marks a path the node will refuse (FieldRefused).
func DescribeApproval(r peer.ApprovalRequest, self key.PublicKey, check PathCheck) Approval {
	a := Approval{Title: ApprovalTitle(r), Who: visible.String(nameOrKey(r.FromName, r.From.String()))}
	a.Fields = append(a.Fields, Field{"who", r.From.String()})
	a.Fields = append(a.Fields, Field{"capability", strings.Join(r.Caps, ", ")})
	a.Fields = append(a.Fields, Field{"on", onText(r, self)})
	// How an exec would run here, high up where no scrolling hides it.
	switch r.Sandbox {
	case "none":
		a.Fields = append(a.Fields, Field{"sandbox", SandboxNone})
	case "bwrap":
		a.Fields = append(a.Fields, Field{"sandbox", SandboxBwrap})
	case peer.SandboxUnavailable:
		a.Fields = append(a.Fields, Field{"sandbox", SandboxUnavailable})
	}
	if !r.Sub.IsZero() && r.Sub != r.From {
		a.Fields = append(a.Fields, Field{"for", r.Sub.String()})
	}
	if r.Kind == peer.ApprovalGrantRequest {
		a.Fields = append(a.Fields, Field{"for how long", ttlText(r.TTL)})
	} else {
		a.Fields = append(a.Fields, detailFields(r, check)...)
	}
	if r.Kind == peer.ApprovalGrantRequest {
		// A grant request's reason is the asker's; a profile request's is
		// the node's (why no grant honors it): Why.
		if r.Reason != "" {
			a.Fields = append(a.Fields, Field{FieldTheirReason, r.Reason})
		}
	}
	a.Why = WhyAsked(r)
	a.Deadline = parseTime(r.Deadline)
	a.Choices = Choices(r)
	a.Grants = Clip(visible.String(grantsText(r, self)), MaxField)
	// The peer chose the name, command, paths, content and reason: show
	// every character they hold.
	for i := range a.Fields {
		a.Fields[i].Value = visible.String(a.Fields[i].Value)
	}
	for i, f := range a.Fields {
		if cut := visible.Cut(f.Value, MaxField); cut != f.Value {
			if a.Whole == nil {
				a.Whole = slices.Clone(a.Fields)
			}
			a.Fields[i].Value = fmt.Sprintf("%s\n(%d characters in all: Show whole request…)", cut, utf8.RuneCountInString(f.Value))
		}
	}
	return a
}

// Choices are the prompt's buttons for r, Deny last. Each says exactly
// what it grants and takes exactly that decision (peer.Decision: Allow
// with For 0 lets this one request run; For > 0 also signs a grant for
// that long). A grant request has no "once": what it asks for is a grant,
// which lasts until it expires, so it is offered for as long as it asked
// (when this peer can sign that), and for AllowFor when it asked for
// longer or did not say.
func Choices(r peer.ApprovalRequest) []Choice {
	var cs []Choice
	if r.Kind == peer.ApprovalGrantRequest {
		asked := time.Duration(r.TTL) * time.Second
		if r.TTL > 0 && r.TTL <= int64(MaxGrantFor/time.Second) {
			cs = append(cs, Choice{Label: "Allow for " + Duration(asked) + " as asked", Decision: peer.Decision{Allow: true, For: asked}})
		}
		if !(r.TTL > 0 && asked <= AllowFor) {
			cs = append(cs, Choice{Label: "Allow for " + Duration(AllowFor), Decision: peer.Decision{Allow: true, For: AllowFor}})
		}
	} else {
		cs = append(cs,
			Choice{Label: "Allow once", Decision: peer.Decision{Allow: true}},
			Choice{Label: "Allow " + strings.Join(r.Caps, ", ") + " for " + Duration(AllowFor), Decision: peer.Decision{Allow: true, For: AllowFor}})
	}
	cs[0].Primary = true
	return append(cs, Choice{Label: Deny, Decision: peer.Decision{Allow: false, Reason: "denied by the user"}})
}

// grantsText says what allowing r for a while lets its peer do.
func grantsText(r peer.ApprovalRequest, self key.PublicKey) string {
	caps := strings.Join(r.Caps, ", ")
	who := visible.String(nameOrKey(r.FromName, r.From.String()))
	if r.Kind == peer.ApprovalGrantRequest {
		if !r.Sub.IsZero() && r.Sub != r.From {
			who = "the key under “for”"
		}
		where := onText(r, self)
		if strings.Contains(where, "\n") || strings.HasPrefix(where, "ed25519:") || len(r.On) == 0 && r.On != nil {
			where = "the peers under “on”"
		}
		return fmt.Sprintf("Allowing signs a grant: %s may then use %s on %s without asking, until it expires.", who, caps, where)
	}
	what := map[string]string{
		"exec":     "run any command on this peer, as you,",
		"fs:read":  "read any file in the workspace of this peer",
		"fs:write": "write any file in the workspace of this peer",
	}[caps]
	if what == "" {
		what = "use " + caps + " on this peer"
	}
	return fmt.Sprintf("“Allow %s for %s” also signs a grant: %s may then %s for %s without asking.",
		caps, Duration(AllowFor), who, what, Duration(AllowFor))
}

// onText is where a grant would be used: this peer, the keys of the
// request's on list as they are, or anywhere my grants are honored.
func onText(r peer.ApprovalRequest, self key.PublicKey) string {
	if r.On == nil {
		if r.Kind == peer.ApprovalGrantRequest {
			return "any peer that honors your grants"
		}
		return "this peer"
	}
	if len(r.On) == 0 {
		return "(an empty list)"
	}
	var on []string
	for _, k := range r.On {
		if k == self {
			on = append(on, "this peer")
		} else {
			on = append(on, k.String())
		}
	}
	return strings.Join(on, "\n")
}

// ttlText is how long a grant request asked for.
func ttlText(ttl int64) string {
	switch {
	case ttl <= 0:
		return "not said (" + Duration(AllowFor) + " if allowed)"
	case ttl > int64(MaxGrantFor/time.Second):
		return fmt.Sprintf("%s (more than the %s this peer signs: %s if allowed)", Duration(time.Duration(ttl)*time.Second), Duration(MaxGrantFor), Duration(AllowFor))
	}
	return Duration(time.Duration(ttl) * time.Second)
}

// WholeLines lays out fields for reading in a list: each field's label on
// a line of its own, then its value wrapped at width runes, monospace.
func WholeLines(fields []Field, width int) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Label+":")
		for _, l := range Wrap(f.Value, width, true) {
			out = append(out, "  "+l)
		}
	}
	return out
}

// detailFields shows a profile request's data exactly: the command line,
// cwd, env, timeout and stdin of an exec; the path of an fs request, and
// for a write whether it appends or replaces and what it writes; anything
// else as compact JSON. A path or cwd the node will refuse is followed by
// FieldRefused.
func detailFields(r peer.ApprovalRequest, check PathCheck) []Field {
	d := r.Detail
	if len(d) == 0 || string(d) == "null" {
		return nil
	}
	refused := func(p string) []Field {
		if check == nil {
			return nil
		}
		if why := check(p); why != "" {
			return []Field{{FieldRefused, "the path " + why}}
		}
		return nil
	}
	// path is an fs request's path field, with FieldRefused after it when
	// the node will refuse the path.
	path := func(p string) []Field { return append([]Field{{"path", p}}, refused(p)...) }
	// A profile request asks for one capability, which says how its data
	// reads (the mime it came with).
	switch {
	case slices.Contains(r.Caps, grant.CapExec):
		var x profile.ExecRequest
		if json.Unmarshal(d, &x) != nil || len(x.Cmd) == 0 {
			break
		}
		var f []Field
		for _, fi := range execFields(x) {
			switch fi.Label {
			case "stdin":
				fi.Value = x.Stdin // what the command reads, not only its size
			case "cwd":
				f = append(f, fi)
				f = append(f, refused(x.Cwd)...)
				continue
			}
			f = append(f, fi)
		}
		return f
	case slices.Contains(r.Caps, grant.CapFSWrite):
		var x profile.WriteRequest
		if json.Unmarshal(d, &x) != nil {
			break
		}
		return append(path(x.Path), writeFields(d)...)
	case slices.Contains(r.Caps, grant.CapFSRead):
		var x profile.ReadRequest
		if json.Unmarshal(d, &x) != nil {
			break
		}
		f := path(x.Path)
		length := int64(0)
		if x.Length != nil {
			length = *x.Length
		}
		if x.Offset > 0 || length > 0 {
			f = append(f, Field{"range", itoa(x.Offset) + "+" + itoa(length)})
		}
		return f
	}
	return []Field{{"request", compact(d)}}
}

// maxBinaryShown is how many bytes of a binary write the prompt shows, as
// hex: enough to tell what kind of file it is.
const maxBinaryShown = 64

// writeFields says what an fs:write does: append or replace, creating
// directories or not, how much, and the content (text as it is; the start
// of binary data in hex), decoded as the runner decodes it.
func writeFields(d json.RawMessage) []Field {
	req, content, err := profile.DecodeWrite(d)
	if err != nil {
		return []Field{{FieldRefused, "malformed: " + strings.TrimPrefix(err.Error(), profile.ErrBadRequest.Error()+": ")}}
	}
	mode := "replace the file"
	if req.Append {
		mode = "append to the file"
	}
	if req.Mkdir {
		mode += ", creating missing directories"
	}
	f := []Field{{"write", mode + ", " + Size(int64(len(content)))}}
	switch {
	case len(content) == 0:
		f = append(f, Field{"content", "(nothing)"})
	case utf8.Valid(content):
		f = append(f, Field{"content", string(content)})
	default:
		start, _ := visible.Bytes(content, 3*maxBinaryShown+1)
		f = append(f, Field{"content", "binary data: " + start})
	}
	return f
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// HistoryLine is a decided request's row in the Approvals window's history:
// when, who asked for what, and what became of it, in words ("denied: no
// answer in time" for a timeout). loc nil is local time.
func HistoryLine(rec peer.ApprovalRecord, now time.Time, loc *time.Location) string {
	r := rec.Request
	who := nameOrKey(r.FromName, r.From.String())
	what := who + " asked for a grant: " + strings.Join(r.Caps, ", ")
	if r.Kind != peer.ApprovalGrantRequest {
		what = who + " wanted " + strings.Join(r.Caps, ", ")
		for _, f := range detailFields(r, nil) {
			if f.Label == "command" || f.Label == "path" {
				what += " `" + visible.Cut(f.Value, MaxTitle) + "`"
				break
			}
		}
	}
	when := Clock(rec.At, now, loc)
	return Clip(visible.String(when+" · "+what), MaxField) + " · " + Outcome(rec.Decision)
}

// Outcome says what became of a request, in words.
func Outcome(d peer.Decision) string {
	by := map[string]string{"user": "by you", "notification": "by you, from the notification", "policy": "by a policy"}[d.By]
	switch {
	case d.Allow && d.For > 0:
		return strings.TrimSpace("allowed for " + Duration(d.For) + " " + by)
	case d.Allow:
		return strings.TrimSpace("allowed once " + by)
	case d.By == "timeout":
		return "denied: no answer in time"
	case d.By == "expired":
		return "withdrawn: the request expired before an answer"
	case d.By == "limit":
		return "refused unseen: " + visible.String(d.Reason)
	case by != "":
		return "denied " + by
	}
	return "denied"
}
