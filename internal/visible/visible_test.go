package visible

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"make test", "make test"},
		{"línea\ttab\nnew", "línea\ttab\nnew"},
		{"👩‍💻", `👩\u200d💻`},
		// Trojan Source: the override makes the tail read backwards.
		{"rm -rf ~ #\u202e txt.sl", `rm -rf ~ #\u202e txt.sl`},
		{"a\u2066b\u2069c", `a\u2066b\u2069c`},
		{"ls\rrm -rf ~", `ls\u000drm -rf ~`},
		{"x\u200by", `x\u200by`},
		{"\ufeffbom", `\ufeffbom`},
		{"a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"del\x7f", `del\u007f`},
		{"c1\u0085", `c1\u0085`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"real \ufffd stays", "real \ufffd stays"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got, want := Hidden(tc.in), tc.in != tc.want; got != want {
			t.Errorf("Hidden(%q) = %v, want %v", tc.in, got, want)
		}
	}
}

func TestArgv(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"make", "test"}, "make test"},
		{[]string{"rm", "-rf", "build dir"}, `rm -rf "build dir"`},
		{[]string{"ls", "a; rm -rf ~"}, `ls "a; rm -rf ~"`},
		{[]string{"echo", ""}, `echo ""`},
		{[]string{"sh", "-c", "echo a\nrm -rf ~"}, `sh -c "echo a\nrm -rf ~"`},
		{[]string{"cat", "x\u202egp.eliF"}, `cat "x\u202egp.eliF"`},
		{[]string{"cat", "soft\u00adhyphen"}, `cat "soft\u00adhyphen"`},
		{[]string{"go", "test", "./..."}, "go test ./..."},
		{[]string{"echo", "\u00a0"}, `echo "\u00a0"`},
	} {
		got := Argv(tc.argv)
		if got != tc.want {
			t.Errorf("Argv(%q) = %q, want %q", tc.argv, got, tc.want)
		}
		if Hidden(got) {
			t.Errorf("Argv(%q) = %q hides a character", tc.argv, got)
		}
	}
}

func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd, want string
		exact, ok bool
	}{
		{`"go vet ./..."`, "go vet ./...", true, true},
		{`["rm","-rf","build dir"]`, `rm -rf "build dir"`, true, true},
		{`"ls #\u202e"`, `ls #\u202e`, false, true},
		{`["cat","a\u200bb"]`, `cat "a\u200bb"`, false, true},
		{`{"x":1}`, "", false, false},
		{`null`, "", false, false},
		{``, "", false, false},
	} {
		text, exact, ok := Command(json.RawMessage(tc.cmd))
		if text != tc.want || exact != tc.exact || ok != tc.ok {
			t.Errorf("Command(%s) = %q, %v, %v; want %q, %v, %v", tc.cmd, text, exact, ok, tc.want, tc.exact, tc.ok)
		}
	}
}

func TestRequest(t *testing.T) {
	for _, tc := range []struct {
		detail, want string
		exact        bool
	}{
		{`{"cmd":["make","test"],"cwd":"services/api"}`, "$ make test  (in services/api)", true},
		{`{"cmd":"go vet ./..."}`, "$ go vet ./...", true},
		{`{"path":"go.mod","offset":0}`, "go.mod", true},
		{`{"other":1}`, `{"other":1}`, true},
		// Argument boundaries show.
		{`{"cmd":["ls","a; rm -rf ~"]}`, `$ ls "a; rm -rf ~"`, true},
		// Characters that do not show as themselves are escaped.
		{`{"cmd":"ls #\u202e ~ fr- mr"}`, `$ ls #\u202e ~ fr- mr`, false},
		{`{"cmd":["cat","a\u200bb"]}`, `$ cat "a\u200bb"`, false},
		{`{"cmd":"ls","cwd":"x\u2066"}`, `$ ls  (in x\u2066)`, false},
		{`{"path":"notes\u202e/dm.txt"}`, `notes\u202e/dm.txt`, false},
		{`{"other":"\u200f"}`, `{"other":"\u200f"}`, true}, // the JSON as it came: the escape is its own text
		// Environment and stdin change what a command does.
		{`{"cmd":"ls","env":{"LD_PRELOAD":"/tmp/x.so"}}`, "$ ls  (with environment)", false},
		{`{"cmd":["sh"],"stdin":"rm -rf ~","cwd":"a"}`, "$ sh  (with stdin)  (in a)", false},
		{`{"cmd":"make","env":{"A":"1"},"stdin":"x"}`, "$ make  (with environment and stdin)", false},
	} {
		got, exact := Request(json.RawMessage(tc.detail))
		if got != tc.want || exact != tc.exact {
			t.Errorf("%s: %q exact %v, want %q exact %v", tc.detail, got, exact, tc.want, tc.exact)
		}
	}
}

// FuzzString: the result never hides a character, is valid UTF-8, keeps
// text without hidden characters as it is, and is its own String.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "make test", "a\u202eb", "x\xffy", "\u2028", "👩‍💻", "\U000e0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if Hidden(got) || !utf8.ValidString(got) {
			t.Fatalf("String(%q) = %q still hides something", s, got)
		}
		if !Hidden(s) && got != s {
			t.Fatalf("String(%q) = %q changed text that hides nothing", s, got)
		}
		if String(got) != got {
			t.Fatalf("String is not idempotent on %q", s)
		}
		if a := Argv([]string{s, "x"}); Hidden(a) || !strings.HasSuffix(a, " x") {
			t.Fatalf("Argv(%q) = %q", s, a)
		}
	})
}

// FuzzRequest: any request data comes out as text that hides nothing, and
// is not called exact when it runs over more than one line.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{`{"cmd":["make","test"],"cwd":"a"}`, `{"cmd":"ls\u202e"}`, `{"path":"x"}`,
		`{"cmd":"ls","env":{"A":"1"},"stdin":"x"}`, `[1,2]`, `"str"`, `{"cmd":{"x":1}}`, "{\"path\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		text, exact := Request(json.RawMessage(raw))
		if Hidden(text) || !utf8.ValidString(text) {
			t.Fatalf("Request(%q) = %q hides something", raw, text)
		}
		if exact && strings.ContainsAny(text, "\n\t") {
			t.Fatalf("Request(%q) = %q: more than one line, yet exact", raw, text)
		}
	})
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		in    string
		n     int
		want  string
		whole bool
	}{
		{"hello", 20, `"hello"`, true},
		{"", 20, `""`, true},
		{"a\nb\t\"c\"\\", 40, `"a\nb\t\"c\"\\"`, true},
		{"rm -rf ~ #\u202e", 40, `"rm -rf ~ #\u202e"`, true},
		{strings.Repeat("x", 100), 20, `"` + strings.Repeat("x", 18) + "…", false},
		{"\x7fELF\xff\x00\x01", 40, "7f 45 4c 46 ff 00 01", true},
		{"\xff" + strings.Repeat("\x00", 100), 16, "ff 00 00 00 00…", false},
	} {
		got, whole := Bytes([]byte(tc.in), tc.n)
		if got != tc.want || whole != tc.whole {
			t.Errorf("Bytes(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, whole, tc.want, tc.whole)
		}
		if n := utf8.RuneCountInString(got); n > tc.n {
			t.Errorf("Bytes(%q, %d): %d runes", tc.in, tc.n, n)
		}
		if Hidden(got) {
			t.Errorf("Bytes(%q) shows a hidden character: %q", tc.in, got)
		}
	}
	// A megabyte costs what its first n runes cost.
	big := []byte(strings.Repeat("é", 1<<19))
	if got, whole := Bytes(big, 50); whole || utf8.RuneCountInString(got) != 50 {
		t.Errorf("big: %d runes, whole %v", utf8.RuneCountInString(got), whole)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0 s", 30 * time.Second: "30 s", 10 * time.Minute: "10 min", time.Hour: "1 hour", 2 * time.Hour: "2 h",
		24 * time.Hour: "24 h", 90 * time.Minute: "1 h 30 min", 3601 * time.Second: "1 h 1 s", 7 * 24 * time.Hour: "7 days",
		49 * time.Hour: "49 h",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%s) = %q, want %q", d, got, want)
		}
	}
}
