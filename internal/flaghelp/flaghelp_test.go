package flaghelp

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// Every flag gets a line: a value named by metavar unless it is boolean,
// one dash for a one-letter name, a true default spelled out, and the
// default after the description unless it is the zero value.
func TestWrite(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("data", "", "data directory")
	fs.Duration("timeout", 10*time.Minute, "give up after this long")
	fs.Bool("json", false, "print JSON")
	fs.Bool("wait", true, "wait for it")
	fs.String("o", "", "output file")
	var b strings.Builder
	Write(&b, fs, func(f *flag.Flag) string { return strings.ToUpper(f.Name) })
	want := `
flags:
  --data DATA        data directory
  --json             print JSON
  -o O               output file
  --timeout TIMEOUT  give up after this long (default 10m0s)
  --wait=true|false  wait for it (default true)
`
	if b.String() != want {
		t.Errorf("Write wrote\n%s\nwant\n%s", b.String(), want)
	}
}
