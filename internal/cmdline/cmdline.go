// Package cmdline writes a program and its arguments as one command line
// for the files that hold one: a desktop entry's Exec= key, a systemd
// unit's ExecStart=. Each format quotes by its own rules (a Quoting); the
// quoting of an argument and the joining are here once.
//
// It only builds strings: it runs nothing and writes no file.
package cmdline

import "strings"

// Quoting is one format's rules for quoting an argument.
type Quoting struct {
	// Always escapes every argument first, quoted or not (a format's
	// specifiers and variables, such as %).
	Always *strings.Replacer
	// Reserved lists the characters that make an argument need double
	// quotes; an empty argument always does.
	Reserved string
	// Inside escapes an argument between the double quotes.
	Inside *strings.Replacer
}

// Join quotes prog and each of args and joins them with spaces.
func (q Quoting) Join(prog string, args []string) string {
	all := append([]string{prog}, args...)
	for i, a := range all {
		all[i] = q.Quote(a)
	}
	return strings.Join(all, " ")
}

// Quote quotes one argument: as it is when it needs no quotes, else in
// double quotes with Inside's escapes.
func (q Quoting) Quote(a string) string {
	if q.Always != nil {
		a = q.Always.Replace(a)
	}
	if a != "" && !strings.ContainsAny(a, q.Reserved) {
		return a
	}
	return `"` + q.Inside.Replace(a) + `"`
}
