package notify

import (
	"encoding/json"
	"testing"
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
}

func TestClip(t *testing.T) {
	if got := clip("ééééé", 4); got != "ééé…" {
		t.Errorf("clip: %q", got)
	}
	if got := clip("a\tb", 4); got != "a b" {
		t.Errorf("clip: %q", got)
	}
}

func TestDetailText(t *testing.T) {
	for _, tc := range []struct{ detail, want string }{
		{`{"cmd":["make","test"],"cwd":"services/api"}`, "$ make test  (in services/api)"},
		{`{"cmd":"go vet ./..."}`, "$ go vet ./..."},
		{`{"path":"go.mod","offset":0}`, "go.mod"},
		{`{"other":1}`, `{"other":1}`},
	} {
		if got := detailText(json.RawMessage(tc.detail)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.detail, got, tc.want)
		}
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
