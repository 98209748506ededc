package cmdline

import (
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	q := Quoting{Always: strings.NewReplacer("%", "%%"), Reserved: ` "\`, Inside: strings.NewReplacer(`\`, `\\`, `"`, `\"`)}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "/bin/p"},
		{[]string{"a", "b"}, "/bin/p a b"},
		{[]string{""}, `/bin/p ""`},
		{[]string{"a b"}, `/bin/p "a b"`},
		{[]string{`say "hi"`}, `/bin/p "say \"hi\""`},
		{[]string{`c:\x`}, `/bin/p "c:\\x"`},
		{[]string{"50%"}, "/bin/p 50%%"},
		{[]string{"50% off"}, `/bin/p "50%% off"`},
	} {
		if got := q.Join("/bin/p", tc.args); got != tc.want {
			t.Errorf("Join(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

// A Quoting without Always leaves unquoted arguments as they are.
func TestQuoteNoAlways(t *testing.T) {
	q := Quoting{Reserved: " ", Inside: strings.NewReplacer()}
	if got := q.Quote("50%"); got != "50%" {
		t.Errorf("Quote(50%%) = %s", got)
	}
	if got := q.Quote("a b"); got != `"a b"` {
		t.Errorf("Quote(a b) = %s", got)
	}
}
